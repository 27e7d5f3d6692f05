import { type ChatMessage, type ToolMessage, type ToolOutputRef } from '@ctxkit/core';

/**
 * Copies of tool messages with other content (a view, a placeholder) and a ref, one per original message, content and
 * ref: the same copy comes back from turn to turn, so token counts cached by message object stay valid. A copy that
 * would equal its original is the original.
 */
export class ViewCopies {
  /** The first copy made of each message: most get only one (their placeholder), found without the maps below. */
  private readonly firstCopies = new WeakMap<ChatMessage, ToolMessage>();
  /** The other copies, by original, ref id, then content (the string itself is the key: no longer key is built). */
  private readonly copies = new WeakMap<ChatMessage, Map<string, Map<string, ToolMessage>>>();
  /** The copy each original is shown as, found without hashing its content. */
  private readonly shownCopies = new WeakMap<ChatMessage, ToolMessage>();
  /** The original of each shown copy: its copies are made from that, so they are the same either way. */
  private readonly originals = new WeakMap<ChatMessage, ToolMessage>();

  /** `message` shown with `content` and `ref`, the same copy from call to call. */
  shown(message: ToolMessage, content: string, ref: ToolOutputRef): ToolMessage {
    if (message.content === content && message.output_ref?.id === ref.id) return message;
    const known = this.shownCopies.get(message);
    if (known && known.content === content && known.output_ref?.id === ref.id) return known;
    const copy = copyWith(message, content, ref);
    this.shownCopies.set(message, copy);
    this.originals.set(copy, message);
    return copy;
  }

  /** `message` with `content` (and `ref`, else its own `output_ref`). */
  withContent(message: ToolMessage, content: string, ref?: ToolOutputRef): ToolMessage {
    const outputRef = ref ?? message.output_ref;
    if (message.content === content && message.output_ref?.id === outputRef?.id) return message;
    const original = this.originals.get(message);
    if (original) return this.withContent(original, content, outputRef);
    const first = this.firstCopies.get(message);
    if (first === undefined) {
      const copy = copyWith(message, content, outputRef);
      this.firstCopies.set(message, copy);
      return copy;
    }
    if (first.content === content && first.output_ref?.id === outputRef?.id) return first;
    let byRef = this.copies.get(message);
    if (!byRef) this.copies.set(message, (byRef = new Map()));
    const refId = outputRef?.id ?? '';
    let byContent = byRef.get(refId);
    if (!byContent) byRef.set(refId, (byContent = new Map()));
    let copy = byContent.get(content);
    if (!copy) byContent.set(content, (copy = copyWith(message, content, outputRef)));
    return copy;
  }
}

function copyWith(message: ToolMessage, content: string, ref: ToolOutputRef | undefined): ToolMessage {
  return { ...message, content, ...(ref ? { output_ref: { ...ref } } : {}) };
}
