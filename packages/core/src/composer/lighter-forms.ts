import type { ChatMessage } from '../contracts/chat-message';
import type { ToolDefinition } from '../contracts/tool-definition';
import { sameShape } from '../ledger/history-ledger';

/** A lighter form of one history message: where, the form, and its tokens before and after. */
export interface LighterForm {
  readonly index: number;
  readonly message: ChatMessage;
  readonly before: number;
  readonly after: number;
}

/**
 * Tool definitions a strategy offers beside the request's tools only while the payload holds a message
 * that hides part of its content behind a ref (tools that fetch it back), and only while they take at
 * most `maxRoomShare` of the room they leave.
 */
export interface ExpandTools {
  /** The payload's tool list with them (the request's `tools` is the list without). */
  readonly offering: ReadonlyArray<ToolDefinition>;
  /** Their tokens. */
  readonly tokens: number;
  readonly maxRoomShare: number;
  /** Offered whether or not a message hides anything (the history or the memory already names a ref). */
  readonly fromStart: boolean;
  /** True when `message` hides part of its content behind a ref. */
  hides(message: ChatMessage): boolean;
}

/**
 * Lighter forms of older history messages (a placeholder naming a ref, a one-line summary), which the
 * layout uses, oldest first and only as many as needed, when the history from its start does not fit
 * the room left after memory (see `ComposeRequest.lighter`).
 */
export interface LighterForms {
  /** First position looked at: the history older than it does not fit even with every form used. */
  readonly from: number;
  /** Where the current turn starts: its messages are never lightened. */
  readonly protectFrom: number;
  /**
   * The history from `from` does not fit even with every lighter form: every one is used (see
   * {@link everyForm}) and the window leaves out what still does not fit.
   */
  readonly all: boolean;
  /**
   * The lighter form of `history[index]`, when it has one smaller than the message. `named`: the form may
   * name the ref it can be fetched back with (the expand tools are offered).
   */
  formAt(history: ReadonlyArray<ChatMessage>, index: number, named: boolean): LighterForm | undefined;
  /** Every lighter form of `history[from, protectFrom)`, in index order (used when {@link all}). */
  everyForm(history: ReadonlyArray<ChatMessage>, named: boolean): ReadonlyArray<LighterForm>;
  /** Messages the user took back: lightened only after every other older message. */
  keepWhole?(index: number): boolean;
  readonly expandTools?: ExpandTools;
}

/** What lightening a history did: the forms used, in index order, and the history with them. */
export interface Lightened {
  readonly history: ReadonlyArray<ChatMessage>;
  readonly forms: ReadonlyArray<LighterForm>;
  /** True when the history did not fit whole beside memory before any form was used. */
  readonly pressure: boolean;
  /** Whether the payload carries the expand tools. */
  readonly toolsOffered: boolean;
}

/** What {@link lightenOldestFirst} works with. */
export interface LightenOptions {
  /** Tokens the messages from `from` on must fit in. */
  targetTokens: number;
  /** When more than the held forms are needed, lighten until the messages fit this many tokens. */
  cutBackTokens?: number;
  /** Forms before this index are used first, whatever the room (the payload sent before used them). */
  holdThrough?: number;
  /** Messages before this index are kept in front of a cut window for what they say: never lightened. */
  keptHeadEnd?: number;
  named: boolean;
  tokensAt(index: number): number;
}

/**
 * The lighter forms that make `history[from, …)` fit `targetTokens`: oldest first (after the kept head;
 * the held ones first, then down to `cutBackTokens`), the messages the user took back last; then the
 * room the last form freed beyond the need goes back, newest first: a form the history fits without is
 * not used (a message of thousands of tokens that had to go no longer takes the smaller ones before it
 * along). Nothing is lightened while the history fits.
 */
export function lightenOldestFirst(
  history: ReadonlyArray<ChatMessage>,
  lighter: LighterForms,
  options: LightenOptions,
): LighterForm[] {
  let total = 0;
  for (let index = lighter.from; index < history.length; index++) total += options.tokensAt(index);
  if (total <= options.targetTokens) return [];
  const forms: LighterForm[] = [];
  const lighten = (index: number): void => {
    const form = lighter.formAt(history, index, options.named);
    if (!form) return;
    forms.push(form);
    total -= form.before - form.after;
  };
  const end = Math.min(lighter.protectFrom, history.length);
  const keepWhole = lighter.keepWhole?.bind(lighter);
  const first = Math.min(end, Math.max(lighter.from, options.keptHeadEnd ?? lighter.from));
  const held = Math.max(first, Math.min(end, options.holdThrough ?? first));
  for (let index = first; index < held; index++) if (!keepWhole?.(index)) lighten(index);
  const target =
    total > options.targetTokens
      ? Math.min(options.targetTokens, options.cutBackTokens ?? options.targetTokens)
      : options.targetTokens;
  for (let index = held; index < end && total > target; index++) if (!keepWhole?.(index)) lighten(index);
  const inOrder = forms.length;
  for (let index = first; keepWhole && index < end && total > target; index++) if (keepWhole(index)) lighten(index);
  const outOfOrder = forms.length > inOrder;
  const kept: LighterForm[] = [];
  for (let position = forms.length - 1; position >= 0; position--) {
    const form = forms[position]!;
    const freed = form.before - form.after;
    if ((form.index >= held || position >= inOrder) && total + freed <= target) total += freed;
    else kept.push(form);
  }
  kept.reverse();
  if (outOfOrder) kept.sort((a, b) => a.index - b.index);
  return kept;
}

/**
 * `history` with `forms` used: a copy, or `history` itself when there are none.
 * @throws Error when a form changes its message's role or call ids: the tool-call pairs would break (a bug of the
 *   strategy that made it)
 */
export function withForms(
  history: ReadonlyArray<ChatMessage>,
  forms: ReadonlyArray<LighterForm>,
): ReadonlyArray<ChatMessage> {
  if (forms.length === 0) return history;
  const result = history.slice();
  for (const { index, message } of forms) {
    if (!sameShape(message, history[index]!))
      throw new Error(
        `The lighter form of history[${index}] is a ${message.role} message of other call ids than the ` +
          `${history[index]!.role} message it stands for: a lighter form must keep its message's role and call ids.`,
      );
    result[index] = message;
  }
  return result;
}

/** One past the first messages from `start` (before `end`) that take at most `tokens` together as they stand. */
export function headEnd(start: number, end: number, tokens: number, tokensAt: (index: number) => number): number {
  let index = start;
  let taken = 0;
  while (index < end) {
    const next = tokensAt(index);
    if (taken + next > tokens) break;
    taken += next;
    index++;
  }
  return index;
}

/** True when a message of `messages` from `from` on hides part of its content. */
export function hidesFrom(
  messages: ReadonlyArray<ChatMessage>,
  from: number,
  hides: (message: ChatMessage) => boolean,
): boolean {
  for (let index = from; index < messages.length; index++) if (hides(messages[index]!)) return true;
  return false;
}
