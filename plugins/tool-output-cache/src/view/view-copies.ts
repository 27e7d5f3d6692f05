import { contentText, type ChatMessage, type ToolMessage, type ToolOutputRef } from '@ctxkit/core';

/**
 * Copies of tool messages with other content (a view, a placeholder) and a ref, one per original
 * message, content and ref: the same copy comes back from turn to turn, so token counts cached by
 * message object stay valid. A copy that would equal its original is the original.
 */
export class ViewCopies {
  private readonly copies = new WeakMap<ChatMessage, Map<string, ToolMessage>>();

  /** `message` with `content` (and `ref`, else its own `output_ref`). */
  withContent(message: ToolMessage, content: string, ref?: ToolOutputRef): ToolMessage {
    const outputRef = ref ?? message.output_ref;
    if (contentText(message.content) === content && (outputRef === message.output_ref || message.output_ref?.id === outputRef?.id) && typeof message.content === 'string') {
      if (message.output_ref || !outputRef) return message;
    }
    let byContent = this.copies.get(message);
    if (!byContent) {
      byContent = new Map();
      this.copies.set(message, byContent);
    }
    const key = `${outputRef?.id ?? ''}\u0000${content}`;
    let copy = byContent.get(key);
    if (!copy) {
      copy = { ...message, content, ...(outputRef ? { output_ref: { ...outputRef } } : {}) };
      byContent.set(key, copy);
    }
    return copy;
  }
}
