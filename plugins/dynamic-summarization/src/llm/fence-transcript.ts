import { type ChatMessage, type ITokenCounter } from '@ctxkit/core';
import { messageText } from '@ctxkit/core/strategy-kit';

import { truncateMiddle } from '../history/truncate-middle';

/** Tags that transcript content may not open or close: they are escaped as `&lt;…&gt;`. */
const RESERVED_TAGS = /<(\/?)\s*(summary|transcript|previous_summary|conversation_summary)\s*>/gi;

/** Neutralises tags the prompt and the reply parser rely on, so content cannot end a block early. */
export function escapeReservedTags(text: string): string {
  return text.replace(RESERVED_TAGS, (_match, slash: string, tag: string) => `&lt;${slash}${tag}&gt;`);
}

/**
 * Renders messages as a transcript for the summarizer: one block per message headed
 * `[#index role]` (tool results name their tool), content escaped with {@link escapeReservedTags},
 * each message cut to head + tail when the whole transcript would pass `maxTokens` (LangChain's
 * summarizer input trimming, without dropping any message).
 */
export function fenceTranscript(
  messages: ReadonlyArray<Readonly<ChatMessage>>,
  firstIndex: number,
  maxTokens: number,
  counter: ITokenCounter,
): string {
  const names: Array<{ id: string; name: string }> = [];
  const blocks = messages.map((message, offset) => {
    let head = `[#${firstIndex + offset} ${message.role}]`;
    if (message.role === 'assistant') {
      names.splice(
        0,
        names.length,
        ...(message.tool_calls ?? []).map((call) => ({ id: call.id, name: call.function.name })),
      );
    } else if (message.role === 'tool') {
      const at = names.findIndex((call) => call.id === message.tool_call_id);
      if (at !== -1) head = `[#${firstIndex + offset} tool result of ${names.splice(at, 1)[0]!.name}]`;
    }
    return { head, body: escapeReservedTags(messageText(message)) };
  });
  const total = blocks.reduce((sum, block) => sum + counter.count(block.head) + counter.count(block.body) + 2, 0);
  if (total > maxTokens && blocks.length > 0) {
    const share = Math.max(32, Math.floor(maxTokens / blocks.length) - 8);
    for (const block of blocks)
      block.body = truncateMiddle(block.body, share, counter, 'characters left out of the summarizer input');
  }
  return blocks.map((block) => `${block.head}\n${block.body}`).join('\n\n');
}
