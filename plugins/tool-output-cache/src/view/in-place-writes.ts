import type { ChatMessage } from '@ctxkit/core';

/**
 * The one way the working view writes into the arrays it grows in place from call to call, and what
 * it tells the composer about them: for each array, the lowest position that holds another message
 * than when the array was last handed to the composer ({@link handedOut}). The composer then checks
 * again only the part of the window it kept from there on (`historyUnchangedBefore`), so a turn
 * costs what changed, not the window. A write of the message a position already holds changes
 * nothing; cutting an array short changes it from its new end.
 */
export class InPlaceWrites {
  /** Per array handed out: the lowest position changed since (`Infinity` when none). */
  private readonly changedFrom = new WeakMap<ReadonlyArray<ChatMessage>, number>();

  /** `target[index] = message`. */
  set(target: ChatMessage[], index: number, message: ChatMessage): void {
    if (target[index] === message) return;
    if (index < target.length) this.changed(target, index);
    target[index] = message;
  }

  /**
   * Makes `target[from, source.length)` the messages of `source` there, `target` ending where `source`
   * ends: written over in place and pushed past its end. Shrinking a long array by its `length` first
   * and pushing again would make the engine move the whole array to new storage, which is what writing
   * in place avoids.
   */
  overwriteFrom(target: ChatMessage[], from: number, source: ReadonlyArray<ChatMessage>): void {
    const end = source.length;
    const written = Math.min(target.length, end);
    for (let index = from; index < written; index++) {
      const message = source[index]!;
      if (target[index] === message) continue;
      this.changed(target, index);
      target[index] = message;
    }
    for (let index = Math.max(from, written); index < end; index++) target.push(source[index]!);
    if (target.length > end) {
      this.changed(target, end);
      target.length = end;
    }
  }

  /**
   * The position before which `messages` holds what it held when it was last handed to the composer
   * ({@link handedOut}): the lowest position changed since, its length when none; undefined when it
   * never was (nothing is claimed of it).
   */
  unchangedBefore(messages: ReadonlyArray<ChatMessage>): number | undefined {
    const changed = this.changedFrom.get(messages);
    return changed === undefined ? undefined : Math.min(changed, messages.length);
  }

  /**
   * `messages` was handed to the composer, which composed with it: changes count from now on. (A
   * compose that failed is not reported, so the next one is told of every change since the last that
   * did not.)
   */
  handedOut(messages: ReadonlyArray<ChatMessage>): void {
    this.changedFrom.set(messages, Number.POSITIVE_INFINITY);
  }

  private changed(target: ReadonlyArray<ChatMessage>, index: number): void {
    const known = this.changedFrom.get(target);
    if (known !== undefined && index < known) this.changedFrom.set(target, index);
  }
}
