import { contentText, type ChatMessage, type ToolMessage, type ToolOutputRef } from '@ctxkit/core';

/**
 * Copies of tool messages with other content (a view, a placeholder) and a ref, one per original
 * message, content and ref: the same copy comes back from turn to turn, so token counts cached by
 * message object stay valid. A copy that would equal its original is the original.
 */
export class ViewCopies {
  /** By original message, then ref id, then content (the content string is a key as it is: no longer key is built from it). */
  private readonly copies = new WeakMap<ChatMessage, Map<string, Map<string, ToolMessage>>>();

  /** `message` with `content` (and `ref`, else its own `output_ref`). */
  withContent(message: ToolMessage, content: string, ref?: ToolOutputRef): ToolMessage {
    const outputRef = ref ?? message.output_ref;
    if (contentText(message.content) === content && (outputRef === message.output_ref || message.output_ref?.id === outputRef?.id) && typeof message.content === 'string') {
      if (message.output_ref || !outputRef) return message;
    }
    let byRef = this.copies.get(message);
    if (!byRef) {
      byRef = new Map();
      this.copies.set(message, byRef);
    }
    const refId = outputRef?.id ?? '';
    let byContent = byRef.get(refId);
    if (!byContent) {
      byContent = new Map();
      byRef.set(refId, byContent);
    }
    let copy = byContent.get(content);
    if (!copy) {
      copy = { ...message, content, ...(outputRef ? { output_ref: { ...outputRef } } : {}) };
      byContent.set(content, copy);
    }
    return copy;
  }
}
