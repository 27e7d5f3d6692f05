import type { IContextStore } from '../contracts/context-store';
import type { RecallScopeKey } from '../contracts/recall-backend';
import { RecallIndex } from './recall-index';
import { recallBackendFor } from './store-recall-backend';

/** A use of a shared index; `release` when done with it. */
export interface RecallIndexLease {
  index: RecallIndex;
  release(): void;
}

/**
 * The recall indexes of a process, one per store and scope: the sessions of one resource served by
 * one process share one index (one copy of its entries in memory, one reader of its log) instead of
 * one each. An index is forgotten when its last user releases it.
 */
const indexes = new WeakMap<IContextStore, Map<string, { index: RecallIndex; users: number }>>();

/** The index of `scope` in `store`, shared with the other users of that scope in this process. */
export function openRecallIndex(
  store: IContextStore,
  scope: RecallScopeKey,
  maxUnitChars: number,
  now: () => number,
): RecallIndexLease {
  let byScope = indexes.get(store);
  if (byScope === undefined) indexes.set(store, (byScope = new Map()));
  const key = `${scope.agentId}\u0000${scope.scope}\u0000${scope.id}\u0000${maxUnitChars}`;
  let shared = byScope.get(key);
  if (shared === undefined) {
    shared = { index: new RecallIndex({ backend: recallBackendFor(store), scope, maxUnitChars, now }), users: 0 };
    byScope.set(key, shared);
  }
  shared.users++;
  let released = false;
  const entry = shared;
  return {
    index: entry.index,
    release: () => {
      if (released) return;
      released = true;
      entry.users--;
      if (entry.users === 0 && byScope.get(key) === entry) byScope.delete(key);
    },
  };
}
