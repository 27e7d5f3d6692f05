import type { ChatMessage } from '../contracts/chat-message';
import { contentText } from '../token-counting/message-text';

/**
 * The text a message pin keeps: the message's text (text parts joined), and for an assistant
 * message each tool call it asked for, as `[call <name> <arguments>]`. Images are not text: they stay
 * in the message's stand-in.
 */
export function pinnedMessageText(message: Readonly<ChatMessage>): string {
  let text = contentText(message.content);
  if (message.role === 'assistant' && Array.isArray(message.tool_calls)) {
    for (const call of message.tool_calls)
      text += `${text === '' ? '' : '\n'}[call ${call.function.name} ${call.function.arguments}]`;
  }
  return text;
}
