import type { AssistantMessage } from '@ctxkit/core';
import { groupToolCalls } from '@ctxkit/core/strategy-kit';

import type { ViewEntry } from '../view/view-entry';
import { stripTrailingToolCalls } from './compact-messages';

/**
 * Where the last `turns` turns (from a caller's user message) of a view start, and the newest user message when it
 * lies before that and is carried along. In an agent run of one user message, where turns would keep everything, the
 * last `turns` model steps are kept instead. With `turns = 0` a tool exchange waiting for results is kept for them.
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
  /** The view made provider-valid: the summary is written from it. */
  entries: ViewEntry[];
  start: number;
  /** The entries kept after the summary and the carried user message. */
  tail: ViewEntry[];
  carried: ViewEntry | undefined;
  /** The caller's messages the summary replaces. */
  replaced: ViewEntry[];
}

/** The split of `view` by a compaction that keeps the last `turns` turns. */
export function splitForCompaction(view: ReadonlyArray<ViewEntry>, turns: number): CompactionSplit {
  const entries = repairToolPairs(view);
  const { start, carriedUser } = compactionTail(entries, turns);
  let tail = entries.slice(start);
  let carried = carriedUser === undefined ? undefined : entries[carriedUser];
  if (carried?.source === null) carried = undefined;
  if (tail[0]?.carried && tail[0].message.role === 'user') {
    // A user message an earlier compaction carried is not right before the kept messages in the history: carry again.
    carried = tail[0];
    tail = tail.slice(1);
  }
  const replaced = entries.slice(0, start).filter((entry) => entry.source !== null && entry !== carried);
  return { entries, start, tail, carried, replaced };
}

/**
 * The view made provider-valid: a tool message that answers no call is left out, an assistant message loses its calls
 * without results (a run that ended on a `finish` call), or is left out when nothing else remains.
 */
function repairToolPairs(entries: ReadonlyArray<ViewEntry>): ViewEntry[] {
  const result: ViewEntry[] = [];
  for (const group of groupToolCalls(entries.map((entry) => entry.message))) {
    if (group.kind === 'orphan-tool') continue;
    let from = group.start;
    if (group.kind === 'incomplete-tool-exchange') {
      const entry = entries[from++]!;
      const assistant = entry.message as AssistantMessage;
      const missing = new Set(group.missingCallIds ?? []);
      const answered = (assistant.tool_calls ?? []).filter((call) => !missing.has(call.id));
      const repaired =
        answered.length > 0 ? [{ ...assistant, tool_calls: answered }] : stripTrailingToolCalls([assistant]);
      for (const message of repaired) result.push({ ...entry, message });
    }
    for (let index = from; index < group.end; index++) result.push(entries[index]!);
  }
  return result;
}
