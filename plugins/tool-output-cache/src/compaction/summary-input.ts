import { type ChatMessage, type ITokenCounter } from '@ctxkit/core';
import { groupAt } from '@ctxkit/core/strategy-kit';

import type { ViewEntry } from '../view/view-entry';

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
