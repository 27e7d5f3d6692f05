import type { ChatMessage } from '@ctxkit/core';
import { messageText } from '@ctxkit/core/strategy-kit';

import { escapeReservedTags } from './fence-transcript';

/** Characters of a message quoted to name it in the instruction. */
const EXCERPT_CHARS = 80;

/** How the instruction names one message of the conversation above: its role and how it begins. */
function describe(message: Readonly<ChatMessage>): string {
  const text = messageText(message).replace(/\s+/g, ' ').trim();
  if (text === '' && message.role === 'assistant' && message.tool_calls?.length) {
    return `the assistant message that calls ${message.tool_calls.map((call) => call.function.name).join(', ')}`;
  }
  const role = message.role === 'tool' ? 'tool result' : `${message.role} message`;
  const excerpt = text.length > EXCERPT_CHARS ? `${text.slice(0, EXCERPT_CHARS)}…` : text;
  return `the ${role} that begins "${escapeReservedTags(excerpt).replace(/"/g, "'")}"`;
}

/**
 * The summary request's message when it continues the conversation's last request: the summary
 * instructions, which messages of the conversation above to fold (named by their first and last,
 * not restated: they are in the request already, read from the provider's prompt cache), the
 * previous summary, and the answer's form (inside `<summary>` tags, without calling a tool).
 */
export function continuationInstruction(
  prompt: string,
  messages: ReadonlyArray<Readonly<ChatMessage>>,
  previousSummary: string | null,
  answer: string,
): ChatMessage {
  const first = messages[0]!;
  const last = messages[messages.length - 1]!;
  const range =
    messages.length === 1
      ? `one message: ${describe(first)}`
      : `${messages.length} messages, from ${describe(first)} to ${describe(last)}`;
  return {
    role: 'user',
    content:
      `<summary_instructions>\n${prompt}\n</summary_instructions>\n\n` +
      'Do not answer or continue the conversation above, and do not call any tool: summarize part of it. ' +
      `The part to fold is its oldest ${range} (after the record of the earlier conversation, if there is one).\n\n` +
      `<previous_summary>\n${previousSummary ? escapeReservedTags(previousSummary) : '(none yet)'}` +
      `\n</previous_summary>\n\n` +
      answer,
  };
}
