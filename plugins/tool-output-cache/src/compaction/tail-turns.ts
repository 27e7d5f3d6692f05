import type { AssistantMessage, ChatMessage } from '@ctxkit/core';
import { groupToolCalls } from '@ctxkit/core/strategy-kit';

import { stripTrailingToolCalls } from './compact-messages';
import type { ViewEntry } from './history-layout';

/**
 * Where the current turn starts (`messages.length`: nothing to protect), whose outputs the budget never replaces (an
 * expansion is not made another ref): the last turn of the messages from `from` on as a compaction keeps it, else the
 * newest model step.
 */
export function currentTurnStart(messages: ReadonlyArray<ChatMessage>, from = 0): number {
  const { start } = compactionTail(messages, from, 1);
  if (start < messages.length) return start;
  for (let index = messages.length - 1; index >= from; index--) if (messages[index]!.role === 'assistant') return index;
  return messages.length;
}

/**
 * Where the last `turns` turns (from a user message at or after `from`: those before are retain + summary) start, and
 * the newest user message when it lies before that and is carried along. In an agent run of one user message, where
 * turns would keep everything, the last `turns` model steps are kept instead. With `turns = 0` a tool exchange waiting
 * for results is kept for them.
 */
export function compactionTail(
  messages: ReadonlyArray<ChatMessage>,
  from: number,
  turns: number,
): { start: number; carriedUser?: number } {
  if (turns > 0) {
    let start = messages.length;
    let seen = 0;
    let lastUser = -1;
    for (let index = messages.length - 1; index >= from; index--) {
      if (messages[index]!.role === 'user') {
        if (lastUser === -1) lastUser = index;
        start = index;
        if (++seen >= turns) break;
      }
    }
    if (start < messages.length && start > from) return { start };
    if (lastUser !== -1) {
      // One long turn: keep its last `turns` model steps, carry the user message.
      const after = lastUser + 1;
      const steps = groupToolCalls(messages.slice(after)).filter(
        (group) => messages[after + group.start]!.role === 'assistant',
      );
      if (steps.length > turns) return { start: after + steps[steps.length - turns]!.start, carriedUser: lastUser };
      return { start: lastUser };
    }
  }
  const groups = groupToolCalls(messages.slice(from));
  const last = groups[groups.length - 1];
  if (last && last.kind === 'incomplete-tool-exchange') return { start: from + last.start };
  return { start: messages.length };
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
  let firstReal = 0;
  while (firstReal < entries.length && entries[firstReal]!.source === null) firstReal++;
  const messages = entries.map((entry) => entry.message);
  const { start, carriedUser } = compactionTail(messages, firstReal, turns);
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
