import { groupToolCalls } from '@ctxkit/core/strategy-kit';

import type { ViewEntry } from '../view/view-entry';

/**
 * Where the last `turns` turns of a view start (`entries.length` when nothing is kept), and the newest user message
 * when it lies before that and is carried along; a turn starts at a user message of the caller. In an agent run of one
 * user message and dozens of model steps, the turn rule would keep everything: the last `turns` model steps (an
 * assistant message with its tool results) are kept instead and the user message is carried along. With `turns = 0` a
 * trailing tool exchange still waiting for results is kept, so that the results arriving next have their call.
 */
export function compactionTail(
  entries: ReadonlyArray<ViewEntry>,
  turns: number,
): { start: number; carriedUser?: number } {
  let firstReal = 0;
  while (firstReal < entries.length && entries[firstReal]!.source === null) firstReal++;
  if (turns > 0) {
    let start = entries.length;
    let seen = 0;
    let lastUser = -1;
    for (let index = entries.length - 1; index >= firstReal; index--) {
      if (entries[index]!.message.role === 'user') {
        if (lastUser === -1) lastUser = index;
        start = index;
        if (++seen >= turns) break;
      }
    }
    if (start < entries.length && start > firstReal) return { start };
    if (lastUser !== -1) {
      // One long turn: keep its last `turns` model steps, carry the user message.
      const from = lastUser + 1;
      const steps = groupToolCalls(entries.slice(from).map((entry) => entry.message)).filter(
        (group) => entries[from + group.start]!.message.role === 'assistant',
      );
      if (steps.length > turns) return { start: from + steps[steps.length - turns]!.start, carriedUser: lastUser };
      return { start: lastUser };
    }
  }
  const groups = groupToolCalls(entries.map((entry) => entry.message));
  const last = groups[groups.length - 1];
  if (last && last.kind === 'incomplete-tool-exchange' && entries[last.start]!.source !== null)
    return { start: last.start };
  return { start: entries.length };
}

/** How a compaction splits the view. */
export interface CompactionSplit {
  start: number;
  /** The entries kept after the summary and the carried user message. */
  tail: ViewEntry[];
  carried: ViewEntry | undefined;
  /** The caller's messages the summary replaces. */
  replaced: ViewEntry[];
}

/** The split of `entries` by a compaction that keeps the last `turns` turns. */
export function splitForCompaction(entries: ReadonlyArray<ViewEntry>, turns: number): CompactionSplit {
  const { start, carriedUser } = compactionTail(entries, turns);
  let tail = entries.slice(start);
  let carried = carriedUser === undefined ? undefined : entries[carriedUser];
  if (carried?.source === null) carried = undefined;
  if (tail[0]?.carried && tail[0].message.role === 'user') {
    // A user message an earlier compaction carried does not sit right before the kept messages in the caller's history:
    // carry it again.
    carried = tail[0];
    tail = tail.slice(1);
  }
  const replaced = entries.slice(0, start).filter((entry) => entry.source !== null && entry !== carried);
  return { start, tail, carried, replaced };
}
