import type { AssistantMessage, ChatMessage, ITokenCounter } from '@ctxkit/core';
import { groupAt, groupToolCalls } from '@ctxkit/core/strategy-kit';

import type { ViewEntry } from '../view/view-entry';
import { stripTrailingToolCalls } from './compact-messages';

/**
 * The view a compaction summarizes, made provider-valid: a tool message that answers no call is left out, an
 * assistant message loses its calls without results (a run that ended on a `finish` call), or is left out when
 * nothing else remains.
 */
export function repairToolPairs(entries: ReadonlyArray<ViewEntry>): ViewEntry[] {
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

/**
 * The messages of a summary call: the view, its oldest tool-call units left out until it fits
 * `availableTokens`. An earlier compaction's retain + summary always stays first.
 */
export function summaryInput(
  entries: ReadonlyArray<ViewEntry>,
  availableTokens: number,
  counter: ITokenCounter,
): ChatMessage[] {
  const messages = entries.map((entry) => entry.message);
  let start = 0;
  while (start < entries.length && entries[start]!.source === null) start++;
  const prefix = messages.slice(0, start);
  let total = counter.countMessages(messages);
  let cut = start;
  while (total > availableTokens && cut < messages.length - 1) {
    const group = groupAt(messages, cut);
    for (let index = cut; index < group.end; index++) total -= counter.countMessage(messages[index]!);
    cut = group.end;
  }
  return [...prefix, ...messages.slice(cut)];
}
