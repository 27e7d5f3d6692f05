import type { ChatMessage } from '../contracts/chat-message';
import { messageImages } from '../token-counting/message-text';

/** The text of a pinned message's stand-in: where the message went. */
export function pinStandInNote(pinId: string): string {
  return `[pin ${pinId}: this message is kept verbatim in the pinned block above]`;
}

/**
 * A short stand-in for a pinned message, in the history the strategy sees: the same role, name and
 * tool-call structure (`tool_call_id`, `tool_calls` and their reasoning), so tool-call pairs stay
 * valid; the content says the message is pinned above. A user message's images stay with it.
 */
export function pinStandIn(message: Readonly<ChatMessage>, pinId: string): ChatMessage {
  const note = pinStandInNote(pinId);
  switch (message.role) {
    case 'user': {
      const images = messageImages(message);
      return {
        role: 'user',
        content: images.length > 0 ? [{ type: 'text', text: note }, ...images] : note,
        ...(message.name !== undefined ? { name: message.name } : {}),
      };
    }
    case 'assistant':
      return {
        role: 'assistant',
        content: note,
        ...(message.tool_calls !== undefined ? { tool_calls: message.tool_calls } : {}),
        ...(message.reasoning !== undefined ? { reasoning: message.reasoning } : {}),
        ...(message.name !== undefined ? { name: message.name } : {}),
      };
    case 'tool':
      return { role: 'tool', tool_call_id: message.tool_call_id, content: note };
    default:
      return { role: 'system', content: note, ...(message.name !== undefined ? { name: message.name } : {}) };
  }
}

/** True when `message` is the stand-in of pin `pinId` (the same object or a copy of it). */
export function isPinStandIn(message: Readonly<ChatMessage>, pinId: string): boolean {
  const note = pinStandInNote(pinId);
  const content = (message as { content?: unknown }).content;
  if (typeof content === 'string') return content === note;
  return Array.isArray(content) && (content[0] as { text?: unknown } | undefined)?.text === note;
}
