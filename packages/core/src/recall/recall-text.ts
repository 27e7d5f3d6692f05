import type { ChatMessage } from '../contracts/chat-message';
import { contentText } from '../token-counting/message-text';

/**
 * One message as recall text: `user: …`, `assistant: …`, a call as `assistant called name(arguments)`,
 * a result as `tool result: …`. The words of a user or assistant message are kept verbatim, so a
 * recalled turn reads as it was said.
 */
export function recallMessageText(message: Readonly<ChatMessage>, maxChars = Number.POSITIVE_INFINITY): string {
  switch (message.role) {
    case 'user':
      return `user: ${headAndTail(contentText(message.content), maxChars)}`;
    case 'assistant': {
      const lines: string[] = [];
      const text = headAndTail(message.content ?? '', maxChars);
      if (text.length > 0 || !message.tool_calls?.length) lines.push(`assistant: ${text}`);
      for (const call of message.tool_calls ?? []) lines.push(`assistant called ${call.function.name}(${headAndTail(call.function.arguments, maxChars)})`);
      return lines.join('\n');
    }
    case 'tool':
      return `tool result: ${headAndTail(contentText(message.content), maxChars)}`;
    default:
      return `${message.role}: ${headAndTail(contentText(message.content), maxChars)}`;
  }
}

/**
 * The searched part of a unit's recall text, when it is not the whole: each tool result cut to its
 * first `resultChars` characters (a long output is found by its call and its head). Undefined when
 * nothing was cut.
 */
export function recallSearchText(messages: ReadonlyArray<Readonly<ChatMessage>>, maxChars: number, resultChars: number): string | undefined {
  if (!messages.some((message) => message.role === 'tool' && contentText(message.content).length > resultChars)) return undefined;
  return messages.map((message) => (message.role === 'tool' ? `tool result: ${safeSlice(contentText(message.content), 0, resultChars)}` : recallMessageText(message, maxChars))).join('\n');
}

/**
 * The recall text of a unit (one message, or a call with its results), at most `maxChars`
 * characters: a longer one keeps its head and tail around a marker (what the model reads back of a
 * huge tool output; the whole stays in the caller's history).
 */
export function recallUnitText(messages: ReadonlyArray<Readonly<ChatMessage>>, maxChars: number): string {
  return headAndTail(messages.map((message) => recallMessageText(message, maxChars)).join('\n'), maxChars);
}

/** `text`, or its head and tail around a marker when it is longer than `maxChars`. */
function headAndTail(text: string, maxChars: number): string {
  if (text.length <= maxChars) return text;
  const keep = Math.max(0, maxChars - 64);
  const head = Math.ceil(keep * 0.7);
  const tail = keep - head;
  return `${safeSlice(text, 0, head)}\n[… ${text.length - head - tail} characters not recalled …]\n${safeSlice(text, text.length - tail, text.length)}`;
}

/** `text.slice(start, end)` without splitting a surrogate pair at either end. */
function safeSlice(text: string, start: number, end: number): string {
  let from = start;
  let to = end;
  if (from > 0 && isLowSurrogate(text.charCodeAt(from))) from++;
  if (to < text.length && isLowSurrogate(text.charCodeAt(to))) to--;
  return text.slice(from, Math.max(from, to));
}

function isLowSurrogate(code: number): boolean {
  return code >= 0xdc00 && code <= 0xdfff;
}
