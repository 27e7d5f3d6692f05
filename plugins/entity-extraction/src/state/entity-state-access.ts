import type { IContextManager } from '@ctxkit/core';

import type { EntityState, EntityStateVersion } from './entity-state';

/**
 * What the entity extraction strategy exposes besides the context manager contract: the current state and
 * its version history. Hosts reach it from any manager with {@link hasEntityState}.
 * @see docs/strategies/entity-extraction.md
 */
export interface EntityStateAccess {
  /** A copy of the current state (loaded from the store on first use). */
  getState(): Promise<EntityState>;
  /** Copies of every version record, oldest first (version 1 is the first update). */
  getVersions(): Promise<EntityStateVersion[]>;
  /**
   * The state as it was at `version` (0 is the empty state), rebuilt from the version diffs.
   * @throws RangeError when the version does not exist
   */
  getStateAt(version: number): Promise<EntityState>;
  /** The current version number (0 before the first update). */
  getVersion(): Promise<number>;
}

/** True when a context manager exposes the entity state (the entity extraction strategy does). */
export function hasEntityState(manager: IContextManager): manager is IContextManager & EntityStateAccess {
  const candidate = manager as Partial<EntityStateAccess>;
  return (
    typeof candidate.getState === 'function' &&
    typeof candidate.getVersions === 'function' &&
    typeof candidate.getStateAt === 'function'
  );
}
