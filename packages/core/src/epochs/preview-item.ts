import type { ChatMessage } from '../contracts/chat-message';
import type { PreviewItem } from '../contracts/reduction-epoch';
import { contentText } from '../token-counting/message-text';
import type { ITokenCounter } from '../token-counting/token-counter';

/** Characters of an excerpt (the last one an ellipsis when the text is longer). */
const EXCERPT_CHARS = 80;

/** Characters read from a message's text to make its excerpt (a 5 MB tool output is never copied whole). */
const EXCERPT_SOURCE_CHARS = 4 * EXCERPT_CHARS;

/** A message's text on one line: its content, or the calls an assistant message makes without text. */
function oneLineText(message: Readonly<ChatMessage>): string {
  let text = contentText(message.content).slice(0, EXCERPT_SOURCE_CHARS);
  if (text.trim() === '' && message.role === 'assistant' && message.tool_calls && message.tool_calls.length > 0) {
    text =
      `calls ` +
      `${message.tool_calls
        .map((call) => `${call.function.name}(${call.function.arguments.slice(0, EXCERPT_CHARS)}` + `)`)
        .join(', ')}`;
  }
  return text.replace(/\s+/g, ' ').trim();
}

/**
 * `history[index]` as a preview names it: its index, role, tokens by `counter` (cached by message
 * identity, so naming a message the composer already counted costs nothing) and its text on one line,
 * shortened to 80 characters; an assistant message that only calls tools shows its calls.
 */
export function previewItem(
  history: ReadonlyArray<Readonly<ChatMessage>>,
  index: number,
  counter: ITokenCounter,
): PreviewItem {
  const message = history[index]!;
  const characters = Array.from(oneLineText(message));
  const excerpt =
    characters.length > EXCERPT_CHARS ? `${characters.slice(0, EXCERPT_CHARS - 1).join('')}…` : characters.join('');
  return { index, role: message.role, tokens: counter.countMessage(message), excerpt };
}

/** `history[from, to)` as preview items, oldest first. */
export function previewItems(
  history: ReadonlyArray<Readonly<ChatMessage>>,
  from: number,
  to: number,
  counter: ITokenCounter,
): PreviewItem[] {
  const items: PreviewItem[] = [];
  for (let index = Math.max(0, from); index < Math.min(to, history.length); index++)
    items.push(previewItem(history, index, counter));
  return items;
}
