import type { ChatMessage } from '../contracts/chat-message';
import { contentText } from '../token-counting/message-text';
import { surrogateSafeCut } from '../truncation/safe-cut';

/**
 * Characters of a tool result a recalled unit keeps (its head and tail around a marker): a long output
 * is recalled, and found, by its call, its first lines and its last ones; the whole stays in the
 * caller's history. Keeps the recall log and index small on tool-heavy histories (the 10,000-message
 * coding history: 4.4 MB of recall text instead of 14.6 MB).
 */
export const RECALLED_RESULT_CHARS = 1000;

/**
 * One message as recall text: `user: …`, `assistant: …`, a call as `assistant called name(arguments)`,
 * a result as `tool result: …` (at most {@link RECALLED_RESULT_CHARS}). The words of a user or
 * assistant message are kept verbatim, so a recalled turn reads as it was said.
 */
export function recallMessageText(message: Readonly<ChatMessage>, maxChars = Number.POSITIVE_INFINITY): string {
  switch (message.role) {
    case 'user':
      return `user: ${headAndTail(contentText(message.content), maxChars)}`;
    case 'assistant': {
      const lines: string[] = [];
      const text = headAndTail(message.content ?? '', maxChars);
      if (text.length > 0 || !message.tool_calls?.length) lines.push(`assistant: ${text}`);
      for (const call of message.tool_calls ?? [])
        lines.push(`assistant called ${call.function.name}(${headAndTail(call.function.arguments, maxChars)})`);
      return lines.join('\n');
    }
    case 'tool':
      return `tool result: ${headAndTail(contentText(message.content), Math.min(maxChars, RECALLED_RESULT_CHARS))}`;
    default:
      return `${message.role}: ${headAndTail(contentText(message.content), maxChars)}`;
  }
}

/**
 * The recall text of a unit (one message, or a call with its results), at most `maxChars`
 * characters: a longer one keeps its head and tail around a marker (what the model reads back of a
 * huge tool output; the whole stays in the caller's history).
 */
export function recallUnitText(messages: ReadonlyArray<Readonly<ChatMessage>>, maxChars: number): string {
  return headAndTail(messages.map((message) => recallMessageText(message, maxChars)).join('\n'), maxChars);
}

/**
 * `text`, or its head and tail around a marker when it is longer than `maxChars`. The marker is
 * plain ASCII: one character outside Latin-1 would make the engine hold the whole unit at two bytes
 * a character (the recall text of a long coding history took 1.7× the memory with an ellipsis here).
 */
function headAndTail(text: string, maxChars: number): string {
  if (text.length <= maxChars) return text;
  const keep = Math.max(0, maxChars - 64);
  const head = Math.ceil(keep * 0.7);
  const tail = keep - head;
  return (
    `${text.slice(0, surrogateSafeCut(text, head, 'down'))}\n[... ${text.length - head - tail} characters not ` +
    `recalled ...]\n${text.slice(surrogateSafeCut(text, text.length - tail, 'up'))}`
  );
}
