import type { ChatMessage } from '../contracts/chat-message';

/**
 * Whole groups a walk back kept one after the other, newest first: the first ends at `end`, group `i`
 * starts at `starts[i]` (and the next one ends there) and holds `tokens[i]` tokens.
 */
export interface KeptGroups {
  end: number;
  starts: number[];
  tokens: number[];
}

/** How far a walk back reaches over the run: the oldest index it keeps and the tokens of what it keeps. */
export interface RunReach {
  from: number;
  tokens: number;
}

/**
 * Whole tool-call groups a walk back over one conversation's history kept one after the other, with
 * their tokens summed from the oldest. The next walk over the same history grown at its end walks only
 * the new groups down to the run's newest end, then finds where the run stops fitting by binary search
 * instead of group by group: a turn costs its new messages and a check that the run's messages are
 * still the same objects, not a walk over the whole window.
 */
export class KeptGroupRun {
  /** Group boundaries, oldest first: group `i` is `[bounds[i], bounds[i + 1])`. */
  private bounds: number[] = [];
  /** `prefix[i]`: tokens of the groups in `[bounds[0], bounds[i])`. */
  private prefix: number[] = [];
  /** `history[bounds[0], newestEnd)` as it was when kept. */
  private messages: Array<Readonly<ChatMessage>> = [];
  /**
   * The history array (at that length) last found to hold the run's messages in `[from, through)`:
   * the calls of one compose pass the same array, and only the first checks the messages (as a
   * repeated selection trusts the same array at the same length). A caller that grows its array in
   * place says from where it changed it ({@link synced}); only that part is checked again.
   */
  private checked:
    { history: ReadonlyArray<Readonly<ChatMessage>>; length: number; from: number; through: number } | undefined;

  /** Index where the run's newest group ends (-1 when the run is empty). */
  get newestEnd(): number {
    return this.bounds.length > 1 ? this.bounds[this.bounds.length - 1]! : -1;
  }

  /**
   * The oldest group boundary at or after `floor` that a walk arriving at the run's newest end with
   * `room` tokens left reaches while every group fits, with the tokens of the groups it passes.
   * Undefined (and the run forgotten) when `history` no longer holds the run's messages, or when the
   * message after the run is a tool result (it could belong to the run's newest group).
   */
  reach(history: ReadonlyArray<Readonly<ChatMessage>>, room: number, floor: number): RunReach | undefined {
    const last = this.bounds.length - 1;
    if (last < 1) return undefined;
    const to = this.bounds[last]!;
    if (to >= history.length || history[to]!.role === 'tool') {
      this.clear();
      return undefined;
    }
    let low = 0;
    let high = last;
    while (low < high) {
      const middle = (low + high) >> 1;
      if (this.bounds[middle]! < floor) low = middle + 1;
      else high = middle;
    }
    high = last;
    const total = this.prefix[last]!;
    while (low < high) {
      const middle = (low + high) >> 1;
      if (total - this.prefix[middle]! <= room) high = middle;
      else low = middle + 1;
    }
    const from = this.bounds[low]!;
    const checked = this.checked;
    const trusted = checked !== undefined && checked.history === history && checked.length === history.length;
    // What is checked already: `[trustedFrom, trustedTo)` (empty when nothing is).
    const trustedFrom = trusted ? Math.max(checked.from, from) : to;
    const trustedTo = trusted ? Math.min(checked.through, to) : to;
    if (trustedTo - trustedFrom < to - from) {
      const base = this.bounds[0]!;
      for (let index = to - 1; index >= from; index--) {
        if (index === trustedTo - 1 && trustedFrom < trustedTo) index = trustedFrom;
        else if (history[index] !== this.messages[index - base]) {
          this.clear();
          return undefined;
        }
      }
      this.checked = { history, length: history.length, from, through: to };
    }
    return { from, tokens: total - this.prefix[low]! };
  }

  /** Adds groups kept right after the run's newest end (the oldest of them starts at that end). */
  extend(history: ReadonlyArray<Readonly<ChatMessage>>, groups: KeptGroups): void {
    const { starts } = groups;
    if (starts.length === 0 || starts[starts.length - 1] !== this.newestEnd) return;
    // The new groups are copied from `history`: a check of the older part against it still holds.
    const checked = this.checked;
    if (checked !== undefined && (checked.history !== history || checked.length !== history.length))
      this.checked = undefined;
    else if (checked !== undefined && checked.through === this.newestEnd) checked.through = groups.end;
    for (let index = this.newestEnd; index < groups.end; index++) this.messages.push(history[index]!);
    this.appendBounds(groups);
  }

  /**
   * `history` is the conversation's history of a new compose. When it is the array last checked and
   * `unchangedBefore` is given, the caller changed that array in place only from `unchangedBefore`
   * on (it grew, or positions from there hold other messages): what was checked before that index
   * still holds and is not checked again. Without it, the same array is trusted only at the same
   * length (a caller that grows its array in place and does not say where it changed it has it
   * checked again in full).
   */
  synced(history: ReadonlyArray<Readonly<ChatMessage>>, unchangedBefore: number | undefined): void {
    const checked = this.checked;
    if (checked === undefined || unchangedBefore === undefined) return;
    if (checked.history !== history) {
      this.checked = undefined;
      return;
    }
    checked.through = Math.min(checked.through, unchangedBefore, history.length);
    checked.length = history.length;
  }

  /** Starts the run anew from groups a walk kept one after the other. */
  restart(history: ReadonlyArray<Readonly<ChatMessage>>, groups: KeptGroups): void {
    this.clear();
    const { starts } = groups;
    if (starts.length === 0) return;
    const oldest = starts[starts.length - 1]!;
    this.bounds.push(oldest);
    this.prefix.push(0);
    this.messages = history.slice(oldest, groups.end);
    this.appendBounds(groups);
    this.checked = { history, length: history.length, from: oldest, through: groups.end };
  }

  /** Forgets the run. */
  clear(): void {
    this.bounds = [];
    this.prefix = [];
    this.messages = [];
    this.checked = undefined;
  }

  private appendBounds(groups: KeptGroups): void {
    const { starts, tokens } = groups;
    for (let position = starts.length - 1; position >= 0; position--) {
      this.bounds.push(position === 0 ? groups.end : starts[position - 1]!);
      this.prefix.push(this.prefix[this.prefix.length - 1]! + tokens[position]!);
    }
  }
}
