import type { ChatMessage, ImageContentPart, ReasoningItem } from '../contracts/chat-message';

/**
 * The text of a message that counts as tokens: its content (text parts joined) plus, for assistant
 * messages, each tool call's name and arguments and the reasoning the provider is sent back (see
 * {@link reasoningText}). Image parts are not text; see {@link messageImages}.
 */
export function messageText(message: Readonly<ChatMessage>): string {
  let text = contentText(message.content);
  if (message.role === 'assistant') {
    if (message.tool_calls)
      for (const call of message.tool_calls) text += `\n${call.function.name}\n${call.function.arguments}`;
    if (message.reasoning) {
      for (const item of message.reasoning) {
        const reasoning = reasoningText(item);
        if (reasoning !== '') text += `\n${reasoning}`;
      }
    }
  }
  return text;
}

/**
 * The part of an opaque provider item that goes back to the provider as input, counted as text:
 * - Anthropic: a `thinking` block's text (its signature is not text), a `redacted_thinking` block's
 *   data, a `compaction` block's summary (`content`) and `encrypted_content` (not its signature);
 * - OpenAI Responses: a reasoning item's summary texts and encrypted content, a compaction item's
 *   encrypted content;
 * - nothing for `reasoning_content` of OpenAI-compatible servers (the chat format does not send it back);
 * - for any other provider or item type, the item's JSON, so that an unknown item is never counted as free.
 */
export function reasoningText(item: Readonly<ReasoningItem>): string {
  const data = item.data;
  if (item.provider === 'anthropic') {
    if (data.type === 'thinking') return typeof data.thinking === 'string' ? data.thinking : '';
    if (data.type === 'redacted_thinking') return typeof data.data === 'string' ? data.data : '';
    if (data.type === 'compaction')
      return [data.content, data.encrypted_content]
        .filter((part): part is string => typeof part === 'string' && part !== '')
        .join('\n');
  }
  if (item.provider === 'openai' && data.type === 'compaction')
    return typeof data.encrypted_content === 'string' ? data.encrypted_content : '';
  if (item.provider === 'openai' && data.type === 'reasoning') {
    // The Responses shape (`summary`, `encrypted_content`) or the Agents SDK's (`content`,
    // `providerData.encrypted_content`).
    const texts = (parts: unknown) =>
      Array.isArray(parts)
        ? parts
            .map((part: unknown) =>
              typeof (part as { text?: unknown })?.text === 'string' ? (part as { text: string }).text : '',
            )
            .filter((text) => text !== '')
        : [];
    const providerData = data.providerData as { encrypted_content?: unknown } | undefined;
    const encrypted = [data.encrypted_content, providerData?.encrypted_content].filter(
      (value): value is string => typeof value === 'string' && value !== '',
    );
    return [...texts(data.summary), ...texts(data.content), ...encrypted].join('\n');
  }
  if (item.provider === 'openai-compatible') return '';
  return JSON.stringify(data);
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
