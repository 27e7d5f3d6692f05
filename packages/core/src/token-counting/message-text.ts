import type { ChatMessage, ImageContentPart } from '../contracts/chat-message';

/**
 * The text of a message that counts as tokens: its content (text parts joined) plus, for assistant
 * messages, each tool call's name and arguments. Image parts are not text; see {@link messageImages}.
 */
export function messageText(message: Readonly<ChatMessage>): string {
  let text = contentText(message.content);
  if (message.role === 'assistant' && message.tool_calls) {
    for (const call of message.tool_calls) text += `\n${call.function.name}\n${call.function.arguments}`;
  }
  return text;
}

/** Text of a content field (string, parts, or null). */
export function contentText(content: ChatMessage['content'] | undefined): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  let text = '';
  for (const part of content) {
    if (part.type === 'text') text += (text ? '\n' : '') + part.text;
  }
  return text;
}

/** Image parts of a message (counted by the provider's image rule, never as base64 text). */
export function messageImages(message: Readonly<ChatMessage>): ImageContentPart[] {
  if (message.role !== 'user' || !Array.isArray(message.content)) return [];
  return message.content.filter((part): part is ImageContentPart => part.type === 'image_url');
}
