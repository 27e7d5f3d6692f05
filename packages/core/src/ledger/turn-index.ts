import type { ChatMessage } from '../contracts/chat-message';

/**
 * Where the turns of one conversation's history start (a turn starts at a user message), kept
 * incrementally so that turn numbers cost the same at 100 and at 10,000 messages.
 *
 * `sync(history)` takes a history that holds the same first message object and the previous last
 * message object at its place as the previous one grown (the rule of {@link HistoryLedger.sync}),
 * and reads only its new messages; any other history (rebuilt from JSON, cut, another conversation)
 * is read again whole, which costs one role check a message. Queries answer for the last synced
 * history in O(log turns) (ranges: plus the turns returned).
 */
export class TurnIndex {
  /** History indexes of the user messages, ascending. */
  private readonly starts: number[] = [];
  private known = 0;
  private first: Readonly<ChatMessage> | undefined;
  private last: Readonly<ChatMessage> | undefined;

  /** Number of messages of the last synced history. */
  get length(): number {
    return this.known;
  }

  /** Turns (user messages) of the last synced history. */
  get turns(): number {
    return this.starts.length;
  }

  /**
   * Aligns the index with `history`: O(1) plus the new messages when the history grew the previous
   * one; returns true then, false when it was read whole.
   */
  sync(history: ReadonlyArray<Readonly<ChatMessage>>): boolean {
    const previous = this.known;
    const grown =
      previous > 0 && history.length >= previous && history[0] === this.first && history[previous - 1] === this.last;
    const from = grown ? previous : 0;
    if (from === 0) this.starts.length = 0;
    for (let index = from; index < history.length; index++)
      if (history[index]!.role === 'user') this.starts.push(index);
    this.known = history.length;
    this.first = history[0];
    this.last = history[history.length - 1];
    return grown;
  }

  /** Turns that start before history index `index` (user messages in `[0, index)`). */
  turnsBefore(index: number): number {
    let low = 0;
    let high = this.starts.length;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if (this.starts[middle]! < index) low = middle + 1;
      else high = middle;
    }
    return low;
  }

  /** Turns that start in `[from, to)`. */
  turnsWithin(from: number, to: number): number {
    return to <= from ? 0 : this.turnsBefore(to) - this.turnsBefore(from);
  }

  /** History indexes of the user messages in `[from, to)`, ascending (a new array). */
  startsWithin(from = 0, to = this.known): number[] {
    return to <= from ? [] : this.starts.slice(this.turnsBefore(from), this.turnsBefore(to));
  }

  /** History index where turn `turn` starts (turns count from 0), or `undefined` when there is no such turn. */
  turnStart(turn: number): number | undefined {
    return this.starts[turn];
  }
}
