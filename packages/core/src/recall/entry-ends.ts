import type { ChatMessage } from '../contracts/chat-message';

/**
 * Where each of a session's entries ends in its history, beside the entries (same positions), and
 * the message object it ended with when last found there: the same object is the same turn, checked
 * by one comparison. The positions are kept here rather than read from the entries, so that checking
 * a whole history reads two flat arrays, not every entry object (7,005 entries of the 10,000-message
 * bench history: about 0.2 ms a turn when read from the entries).
 */
export class EntryEnds {
  private readonly positions: number[] = [];
  private readonly messages: Array<Readonly<ChatMessage> | undefined> = [];

  get length(): number {
    return this.positions.length;
  }

  /** An entry ending at `to` goes at `at` (its message not found yet). */
  insert(at: number, to: number): void {
    this.positions.splice(at, 0, to);
    this.messages.splice(at, 0, undefined);
  }

  remove(at: number): void {
    this.positions.splice(at, 1);
    this.messages.splice(at, 1);
  }

  /** The message the entry at `at` ended with when last found; undefined before it was. */
  messageAt(at: number): Readonly<ChatMessage> | undefined {
    return this.messages[at];
  }

  /** Where the entry at `at` ends (one past its last message). */
  positionAt(at: number): number {
    return this.positions[at]!;
  }

  found(at: number, message: Readonly<ChatMessage>): void {
    this.messages[at] = message;
  }

  /**
   * The first entry from `from` on that `history` does not show as found: its end message is
   * another object, or it ends past the history's end. `length` when there is none.
   */
  firstUnfound(history: ReadonlyArray<Readonly<ChatMessage>>, from: number): number {
    const { positions, messages } = this;
    const end = history.length;
    let at = from;
    while (at < positions.length) {
      const to = positions[at]!;
      if (to > end || messages[at] !== history[to - 1]) break;
      at++;
    }
    return at;
  }
}
