import { groupToolCalls } from '@ctxkit/core';
import type { ViewEntry } from './view-entry';

/**
 * Where the last `turns` turns of a view start (seed 000 §2.7 `retainLastTurns`). A turn starts at a
 * user message of the caller (never a retain or summary message). With `turns = 0`, a trailing tool
 * exchange still waiting for results is kept, so results that arrive next have their call. Returns
 * `entries.length` when nothing is kept.
 */
export function tailTurnsStart(entries: ReadonlyArray<ViewEntry>, turns: number): number {
  let start = entries.length;
  if (turns > 0) {
    let seen = 0;
    for (let index = entries.length - 1; index >= 0; index--) {
      const entry = entries[index]!;
      if (entry.source === null) break;
      if (entry.message.role === 'user') {
        start = index;
        if (++seen >= turns) break;
      }
    }
    if (start < entries.length) return start;
  }
  const groups = groupToolCalls(entries.map((entry) => entry.message));
  const last = groups[groups.length - 1];
  if (last && last.kind === 'incomplete-tool-exchange' && entries[last.start]!.source !== null) return last.start;
  return start;
}
