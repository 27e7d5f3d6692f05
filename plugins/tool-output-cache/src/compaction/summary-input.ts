import type { AssistantMessage, ChatMessage, ITokenCounter } from '@ctxkit/core';
import { groupAt, groupToolCalls } from '@ctxkit/core/strategy-kit';

import type { ViewEntry } from '../view/view-entry';

/**
 * Makes the view a compaction summarizes provider-valid: a tool message that answers no call is left out, and an
 * assistant message whose calls lack results (a run that ended on a `finish` call) is sent without those calls, or left
 * out when nothing else remains; the caller's history still holds them.
 */
export function repairToolPairs(entries: ReadonlyArray<ViewEntry>): ViewEntry[] {
  const messages = entries.map((entry) => entry.message);
  const result: ViewEntry[] = [];
  const groups = groupToolCalls(messages);
  for (const group of groups) {
    if (group.kind === 'orphan-tool') continue;
    if (group.kind === 'incomplete-tool-exchange') {
      const entry = entries[group.start]!;
      const assistant = entry.message as AssistantMessage;
      const missing = new Set(group.missingCallIds ?? []);
      const answered = (assistant.tool_calls ?? []).filter((call) => !missing.has(call.id));
      if (answered.length > 0) {
        result.push({ ...entry, message: { ...assistant, tool_calls: answered } });
      } else if (typeof assistant.content === 'string' && assistant.content.trim() !== '') {
        const { tool_calls: _calls, reasoning: _reasoning, ...rest } = assistant;
        result.push({ ...entry, message: { ...rest, content: assistant.content } });
      }
      for (let index = group.start + 1; index < group.end; index++) result.push(entries[index]!);
      continue;
    }
    for (let index = group.start; index < group.end; index++) result.push(entries[index]!);
  }
  return result;
}

/**
 * The messages of a compaction's summary call: the view, its oldest tool-call units left out (the
 * saved transcript holds them) until it fits `availableTokens`. The retain + summary of an earlier
 * compaction (entries without a source) always stay first.
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
