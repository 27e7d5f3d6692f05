import type { ChatMessage } from '../contracts/chat-message';
import { groupEndingAt } from '../messages/group-tool-calls';
import { GrowingHistoryCheck } from '../messages/growing-history-check';
import type { MessageGroup } from '../messages/message-group';
import { messageText } from '../token-counting/message-text';
import { messageOverheadTokens } from '../token-counting/message-tokens';
import type { ITokenCounter } from '../token-counting/token-counter';

/** Messages whose text is longer than this are measured with `countUpTo` first (early exit). @default 32768 */
export const LARGE_MESSAGE_CHARS = 32_768;

/** How {@link HistoryLedger.sync} related a history to the previous one. */
export type LedgerContinuity =
  /** Same message objects: the previous counts hold; only new messages will be counted. */
  | 'identity'
  /**
   * Other objects with the same per-position fingerprints (a history rebuilt from JSON): kept counts are looked up
   * again by content digest.
   */
  | 'fingerprint'
  /** A different or edited history: everything is counted again (through the counter's caches). */
  | 'reset';

/** Role + content length + ids: cheap, and enough to recognise the same conversation rebuilt from JSON. */
export function messageFingerprint(message: Readonly<ChatMessage>): string {
  const content = message.content;
  const length =
    typeof content === 'string' ? content.length : Array.isArray(content) ? content.length * 1_000_003 : -1;
  let ids = '';
  if (message.role === 'tool') ids = message.tool_call_id;
  else if (message.role === 'assistant' && message.tool_calls)
    for (const call of message.tool_calls) ids += `${call.id},${call.function.arguments.length};`;
  return `${message.role}:${length}:${ids}`;
}

/**
 * An incremental token ledger for one conversation's history, so that the cost of composing a payload
 * per turn grows with the new messages, not with the history.
 *
 * It remembers the previous history (its first and last message, its length) and the count of every
 * message it has measured. `sync(history)` is O(1) when the new history extends the previous one with
 * the same message objects; when identity is lost (a history rebuilt from JSON) per-position
 * fingerprints recognise the conversation and counts of kept messages are looked up again through the
 * counter's digest cache (exact, never the fingerprint). Messages are measured lazily, when a walk
 * visits them, so a walk back that stops early touches only what it keeps plus one group.
 */
export class HistoryLedger {
  private counts = new Float64Array(64);
  /** Lower bounds for messages measured only up to a limit (huge tool outputs). */
  private readonly atLeast = new Map<number, number>();
  private verified = new Uint8Array(64);
  /** The message object each count was measured on: a count is used only for that same object. */
  private measuredMessages: Array<Readonly<ChatMessage> | undefined> = [];
  /** By the position of its last message: a whole group found there, with the message objects it was found on. */
  private groups: Array<{ group: MessageGroup; messages: ReadonlyArray<Readonly<ChatMessage>> } | undefined> = [];
  private known = 0;
  private first: Readonly<ChatMessage> | undefined;
  private last: Readonly<ChatMessage> | undefined;
  private firstPrint = '';
  private lastPrint = '';
  private lastContinuity: LedgerContinuity = 'reset';
  /** The shape check of the histories synced (see {@link checkShape}). */
  private readonly shape = new GrowingHistoryCheck();
  /** Messages measured (tokenized or looked up) since creation; for tests and the bench. */
  measured = 0;
  /** Truncated copies of the current turn's tool outputs, by message identity and allotment. */
  readonly truncations = new WeakMap<object, { allowed: number; message: ChatMessage; tokens: number }>();

  constructor(readonly counter: ITokenCounter) {}

  /** Number of messages of the last synced history. */
  get length(): number {
    return this.known;
  }

  /**
   * Checks the shape of `history`: only the messages new since the previous check when it is the
   * previous history grown (see {@link GrowingHistoryCheck}).
   * @throws HistoryValidationError (`CTXKIT_HISTORY_INVALID`)
   */
  checkShape(history: ReadonlyArray<unknown>): void {
    this.shape.checkHistoryShape(history);
  }

  /** How the last `sync` related the history to the one before. */
  get continuity(): LedgerContinuity {
    return this.lastContinuity;
  }

  /** Aligns the ledger with `history`. O(1) plus the new messages when the history only grew. */
  sync(history: ReadonlyArray<Readonly<ChatMessage>>): LedgerContinuity {
    const previous = this.known;
    let continuity: LedgerContinuity = 'reset';
    if (previous > 0 && history.length >= previous) {
      if (history[0] === this.first && history[previous - 1] === this.last) continuity = 'identity';
      else if (
        messageFingerprint(history[0]!) === this.firstPrint &&
        messageFingerprint(history[previous - 1]!) === this.lastPrint
      )
        continuity = 'fingerprint';
    }
    if (continuity === 'reset') {
      this.counts = new Float64Array(Math.max(64, history.length));
      this.verified = new Uint8Array(this.counts.length);
      this.measuredMessages = [];
      this.groups = [];
      this.atLeast.clear();
    } else {
      if (continuity === 'fingerprint') this.verified.fill(0, 0, previous);
      if (history.length > this.counts.length) this.grow(history.length);
      if (history.length > previous) {
        this.counts.fill(0, previous, history.length);
        this.verified.fill(0, previous, history.length);
      }
    }
    this.known = history.length;
    this.first = history[0];
    this.last = history[history.length - 1];
    this.firstPrint = this.first ? messageFingerprint(this.first) : '';
    this.lastPrint = this.last ? messageFingerprint(this.last) : '';
    this.lastContinuity = continuity;
    return continuity;
  }

  /**
   * The unit of `history` that ends at `end` (see `groupEndingAt`), found once per position and
   * looked up again while the messages there have the same shape as those it was found on: the same
   * objects, or copies with the same role and call ids (a tool output shown as a placeholder is the
   * same unit). Only units that do not depend on what follows them are kept: a user or assistant
   * message, a tool exchange ending with its last result.
   */
  groupEndingAt(history: ReadonlyArray<Readonly<ChatMessage>>, end: number): MessageGroup {
    const known = this.groups[end - 1];
    if (known !== undefined && known.group.end === end) {
      const { group, messages } = known;
      let same = true;
      for (let index = group.start; index < end && same; index++)
        same = sameShape(history[index]!, messages[index - group.start]!);
      if (same) return group;
    }
    const group = groupEndingAt(history, end);
    const whole =
      group.kind === 'user' ||
      group.kind === 'assistant' ||
      (group.kind === 'tool-exchange' && history[end - 1]!.role === 'tool');
    if (whole) this.groups[end - 1] = { group, messages: history.slice(group.start, end) };
    return group;
  }

  /**
   * Exact tokens of `history[index]` when at most `limit`; otherwise some number greater than `limit`
   * (a huge message is measured only up to the limit). Cached per position.
   */
  tokensWithin(history: ReadonlyArray<Readonly<ChatMessage>>, index: number, limit: number): number {
    const message = history[index]!;
    // A message replaced at this position since it was measured (an edited middle of a history that
    // kept its first and last messages) is measured again: a stale count could overflow the budget.
    if (this.measuredMessages[index] !== message) this.verified[index] = 0;
    if (this.verified[index] === 1) return this.counts[index]!;
    this.measured++;
    const bound = this.atLeast.get(index);
    if (bound !== undefined && this.verified[index] === 2 && bound > limit) return bound;
    const text = messageText(message);
    if (text.length > LARGE_MESSAGE_CHARS) {
      const extra = messageOverheadTokens(message);
      const partial = this.counter.countUpTo(text, Math.max(0, limit - extra) + 1);
      if (partial + extra > limit) {
        this.atLeast.set(index, partial + extra);
        this.verified[index] = 2;
        this.measuredMessages[index] = message;
        return partial + extra;
      }
    }
    const tokens = this.counter.countMessage(message);
    this.counts[index] = tokens;
    this.verified[index] = 1;
    this.measuredMessages[index] = message;
    this.atLeast.delete(index);
    return tokens;
  }

  /** Exact tokens of `history[index]`. */
  tokensAt(history: ReadonlyArray<Readonly<ChatMessage>>, index: number): number {
    return this.tokensWithin(history, index, Number.POSITIVE_INFINITY);
  }

  /**
   * Tokens of `history[from, to)`, for statistics: counts already known are reused (also those kept
   * from a fingerprint-matched history), the rest are counted exactly.
   */
  totalTokens(history: ReadonlyArray<Readonly<ChatMessage>>, from = 0, to = history.length): number {
    let total = 0;
    // A history rebuilt from JSON has new objects everywhere: its fingerprints vouch for the counts.
    const rebuilt = this.lastContinuity === 'fingerprint';
    for (let index = from; index < to; index++) {
      const reusable =
        this.counts[index]! > 0 &&
        this.verified[index] !== 2 &&
        (rebuilt || this.measuredMessages[index] === history[index]);
      total += reusable ? this.counts[index]! : this.tokensAt(history, index);
    }
    return total;
  }

  private grow(size: number): void {
    let capacity = this.counts.length;
    while (capacity < size) capacity *= 2;
    const counts = new Float64Array(capacity);
    counts.set(this.counts);
    const verified = new Uint8Array(capacity);
    verified.set(this.verified);
    this.counts = counts;
    this.verified = verified;
  }
}

/** Whether two messages make the same units: the same role and the same call ids (see `groupAt`). */
export function sameShape(message: Readonly<ChatMessage>, known: Readonly<ChatMessage>): boolean {
  if (message === known) return true;
  if (message.role !== known.role) return false;
  if (message.role === 'tool') return message.tool_call_id === (known as typeof message).tool_call_id;
  if (message.role !== 'assistant') return true;
  const calls = message.tool_calls ?? [];
  const knownCalls = (known as typeof message).tool_calls ?? [];
  if (calls === knownCalls) return true;
  return calls.length === knownCalls.length && calls.every((call, at) => call.id === knownCalls[at]!.id);
}
