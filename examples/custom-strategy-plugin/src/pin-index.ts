import { type ChatMessage } from '@ctxkit/core';
import { assertMessageShape, contentText } from '@ctxkit/core/strategy-kit';

/**
 * The indexes of pinned messages in a history, found incrementally: a history that only grows is
 * scanned from where the last scan stopped, so the per-turn cost follows the new messages. Each new
 * message's shape is checked on the way (a typed `CTXKIT_HISTORY_INVALID` for an unknown role).
 */
export class PinIndex {
  private scanned = 0;
  private last: ChatMessage | undefined;
  private pins: number[] = [];
  private users = 0;

  /** User messages in the history last scanned (the turn number events carry). */
  get userMessages(): number {
    return this.users;
  }

  constructor(private readonly markers: readonly string[]) {}

  /** Pinned indexes of `history`, oldest first. */
  update(history: ReadonlyArray<ChatMessage>): readonly number[] {
    const continues = this.scanned > 0 && history.length >= this.scanned && history[this.scanned - 1] === this.last;
    const from = continues ? this.scanned : 0;
    const pins = continues ? [...this.pins] : [];
    let users = continues ? this.users : 0;
    for (let index = from; index < history.length; index++) {
      const message: unknown = history[index];
      assertMessageShape(message, index);
      if (message.role === 'user') users++;
      if (message.role !== 'user' && !(message.role === 'assistant' && !message.tool_calls?.length)) continue;
      const text = contentText(message.content);
      if (this.markers.some((marker) => text.includes(marker))) pins.push(index);
    }
    this.pins = pins;
    this.users = users;
    this.scanned = history.length;
    this.last = history[history.length - 1];
    return pins;
  }
}
