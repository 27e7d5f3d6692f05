import type { MemoryBlock, MemoryRole } from '@ctxkit/core/strategy-kit';

import type { EntityStateVersion, PersistedEntityState } from '../state/entity-state';
import type { StateBlockCache } from './state-block-cache';

/**
 * The memory block of the entity state for the composer, in a `role` message (user unless
 * `memoryRole` says system): the rendered block, shortened on demand to
 * the room a composition leaves it, and standing for the history read so far (older messages the
 * window leaves out are reported as kept in the entity state). An earlier block may stand for it
 * while the versions it showed are still the state's first ones (no undo took them back since).
 * @param content the block rendered at `stateMaxTokens` (empty when there is no state to show)
 * @param shortened renders the shorter forms (most turns leave the same room), in `role`
 */
export function entityStateMemoryBlock(
  persisted: PersistedEntityState,
  content: string,
  shortened: StateBlockCache,
  stateMaxTokens: number,
  role: MemoryRole = 'user',
): MemoryBlock {
  const version = persisted.versions.length;
  const block: EntityStateMemoryBlock = {
    versions: persisted.versions,
    holds: (earlier) => isEntityStateBlock(earlier) && grewFrom(persisted.versions, earlier.versions),
    name: 'entity state',
    role,
    content,
    shrink: (maxTokens) => {
      const smaller = shortened.render(persisted.state, version, Math.min(maxTokens, stateMaxTokens));
      return smaller.message ? String(smaller.message.content) : undefined;
    },
    covers: {
      until: persisted.processedThrough + 1,
      action: 'dropped',
      recoverableFrom: 'entity-state',
      reason: 'older than the window: its values are in the entity state',
    },
  };
  return block;
}

/** The entity state block with the versions it was rendered from. */
interface EntityStateMemoryBlock extends MemoryBlock {
  readonly versions: ReadonlyArray<EntityStateVersion>;
}

function isEntityStateBlock(block: MemoryBlock): block is EntityStateMemoryBlock {
  return Array.isArray((block as Partial<EntityStateMemoryBlock>).versions);
}

/** Whether `current` starts with the versions of `earlier` (it grew from them; no undo took one back). */
function grewFrom(current: ReadonlyArray<EntityStateVersion>, earlier: ReadonlyArray<EntityStateVersion>): boolean {
  if (current.length < earlier.length) return false;
  const last = earlier.length - 1;
  if (last < 0) return true;
  const a = current[last]!;
  const b = earlier[last]!;
  return a.version === b.version && a.sourceMessageIndex === b.sourceMessageIndex && a.timestamp === b.timestamp;
}
