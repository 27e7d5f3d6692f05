/**
 * Tells how much of a history is new since the previous one seen: a history that extends the
 * previous one (the same first message object, and the previous last message object at the same
 * place, the rule the ledger's sync uses too) is new only from the previous length on; any
 * other history is new from 0. Lets a call check and cache only the messages it has not seen.
 */
export class HistoryGrowth {
  private first: unknown;
  private last: unknown;
  private length = 0;

  /** The index from which `history` is new since the history last remembered. */
  newFrom(history: ReadonlyArray<unknown>): number {
    const grown =
      this.length > 0 &&
      history.length >= this.length &&
      history[0] === this.first &&
      history[this.length - 1] === this.last;
    return grown ? this.length : 0;
  }

  /** Remembers `history` as the one seen. */
  remember(history: ReadonlyArray<unknown>): void {
    this.first = history[0];
    this.last = history[history.length - 1];
    this.length = history.length;
  }

  /** The index from which `history` is new, and remembers it. */
  observe(history: ReadonlyArray<unknown>): number {
    const from = this.newFrom(history);
    this.remember(history);
    return from;
  }
}
