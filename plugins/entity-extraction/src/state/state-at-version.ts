import type { EntityState, EntityStateVersion } from './entity-state';

/**
 * The state as it stood after the first `version` versions (0: the empty state), replayed from
 * their changes.
 * @throws RangeError when there is no such version (an integer from 0 to the number of versions)
 */
export function stateAtVersion(versions: ReadonlyArray<EntityStateVersion>, version: number): EntityState {
  if (!Number.isInteger(version) || version < 0 || version > versions.length) {
    throw new RangeError(`getStateAt: version ${version} does not exist (0 to ${versions.length})`);
  }
  const state: EntityState = {};
  for (const record of versions.slice(0, version)) {
    for (const change of record.diff) {
      if (change.after === null) delete state[change.field];
      else state[change.field] = structuredClone(change.after);
    }
  }
  return state;
}
