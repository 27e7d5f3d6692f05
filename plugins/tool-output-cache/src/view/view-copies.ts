import { type ChatMessage, type ToolMessage, type ToolOutputRef } from '@ctxkit/core';
import { contentText } from '@ctxkit/core/strategy-kit';

/**
 * Copies of tool messages with other content (a view, a placeholder) and a ref, one per original
 * message, content and ref: the same copy comes back from turn to turn, so token counts cached by
 * message object stay valid. A copy that would equal its original is the original.
 */
export class ViewCopies {
  /**
   * The first copy made of each message: most get one only (their placeholder), found without the maps of {@link
   * copies}.
   */
  private readonly firstCopies = new WeakMap<ChatMessage, ToolMessage>();
  /**
   * The other copies, by original message, then ref id, then content (the content string is a key as it is: no longer
   * key is built from it).
   */
  private readonly copies = new WeakMap<ChatMessage, Map<string, Map<string, ToolMessage>>>();

  /**
   * The copy each original is shown as (its view or whole output, with its ref): kept per original, no content is
   * hashed to find it.
   */
  private readonly shownCopies = new WeakMap<ChatMessage, ToolMessage>();
  /**
   * The original of each shown copy: the copies of a shown copy are made from its original, so they are the same
   * objects whether it was made first or not.
   */
  private readonly originals = new WeakMap<ChatMessage, ToolMessage>();

  /**
   * `message` shown with `content` and `ref`: the same copy from call to call (the original itself when it already says
   * that).
   */
  shown(message: ToolMessage, content: string, ref: ToolOutputRef): ToolMessage {
    if (typeof message.content === 'string' && message.content === content && message.output_ref?.id === ref.id)
      return message;
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
    if (
      contentText(message.content) === content &&
      (outputRef === message.output_ref || message.output_ref?.id === outputRef?.id) &&
      typeof message.content === 'string'
    ) {
      if (message.output_ref || !outputRef) return message;
    }
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
      copy = copyWith(message, content, outputRef);
      byContent.set(content, copy);
    }
    return copy;
  }
}

/** `message` with `content` and `ref` (none when `undefined`). */
function copyWith(message: ToolMessage, content: string, ref: ToolOutputRef | undefined): ToolMessage {
  return { ...message, content, ...(ref ? { output_ref: { ...ref } } : {}) };
}
