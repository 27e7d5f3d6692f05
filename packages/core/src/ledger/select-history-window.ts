import type { ChatMessage, ToolMessage, ToolOutputRef, UserMessage } from '../contracts/chat-message';
import type { ReductionCause, ReductionRecord } from '../contracts/llm-payload';
import { BudgetExceededError } from '../errors/budget-exceeded-error';
import { groupEndingAt } from '../messages/group-tool-calls';
import type { MessageGroup } from '../messages/message-group';
import { contentText } from '../token-counting/message-text';
import { utf8ByteLength } from '../token-counting/text-parts';
import type { ITokenCounter } from '../token-counting/token-counter';
import { countLineFeeds } from '../truncation/safe-cut';
import { truncateToFit } from '../truncation/truncate-to-fit';
import type { HeldOutputCuts, OutputCut } from './held-output-cuts';
import { HistoryLedger } from './history-ledger';

/**
 * The `reason` of the reduction for history older than the window (strategies may relabel where it is recoverable
 * from).
 */
export const OLDER_THAN_WINDOW_REASON = 'older than the window: did not fit the budget';

/** Smallest token allotment a truncated tool output gets (room for its head, tail and marker). */
export const MIN_TRUNCATED_OUTPUT_TOKENS = 64;

/** Options of {@link selectHistoryWindow}. */
export interface SelectHistoryWindowOptions {
  history: ReadonlyArray<Readonly<ChatMessage>>;
  /** Tokens the selected messages may use (what is left after system, tools, dynamic and memory blocks). */
  budgetTokens: number;
  counter: ITokenCounter;
  /** The conversation's ledger; pass the same one every turn for O(new messages) cost. */
  ledger?: HistoryLedger;
  /** Keep the newest user message even when it alone exceeds the budget (truncated, reported). @default true */
  keepNewestUserMessage?: boolean;
  /** Truncate the current turn's tool outputs (head + tail) instead of dropping the turn. @default true */
  truncateCurrentTurn?: boolean;
  /** Identifies the strategy in errors. @default 'history-window' */
  strategyId?: string;
  /**
   * History index where the selectable part starts: messages before it are represented elsewhere
   * (a summary covers them), so they are neither kept nor reported by this selection, and the newest
   * user message is looked for from here on. @default 0
   */
  startIndex?: number;
  /** The previous payload's current-turn output cuts, to send again while they fit (see {@link HeldOutputCuts}). */
  heldCuts?: HeldOutputCuts;
}

/** The recent history that fits, as selected by {@link selectHistoryWindow}. */
export interface HistoryWindow {
  /** A new array, oldest first: the caller's message objects, or truncated copies for the current turn. */
  messages: ChatMessage[];
  /** History index of the oldest kept message (`history.length` when nothing is kept). */
  fromIndex: number;
  /** Every drop and truncation, as ranges of history indexes. */
  reductions: ReductionRecord[];
  /** Exact tokens of `messages` by the counter. */
  tokens: number;
  droppedMessages: number;
  truncatedMessages: number;
  /** The current turn's truncated tool outputs, by original message (what a later selection may hold). */
  outputCuts?: ReadonlyMap<ChatMessage, OutputCut>;
}

function dropRecord(from: number, to: number, reason: string, cause: ReductionCause): ReductionRecord {
  return {
    action: 'dropped',
    from,
    to,
    messages: to - from,
    tokensAfter: 0,
    reason,
    recoverableFrom: 'history',
    cause,
  };
}

function pushMerged(reductions: ReductionRecord[], record: ReductionRecord): void {
  const previous = reductions[reductions.length - 1];
  if (
    previous &&
    previous.action === record.action &&
    previous.cause === record.cause &&
    previous.reason === record.reason &&
    previous.from === record.to
  ) {
    previous.from = record.from;
    previous.messages += record.messages;
    return;
  }
  reductions.push(record);
}

function invalidGroupReason(group: MessageGroup): string | undefined {
  if (group.kind === 'orphan-tool') return 'orphan tool result: no matching assistant tool call before it (never sent)';
  if (group.kind === 'incomplete-tool-exchange')
    return `tool call without result (${(group.missingCallIds ?? []).join(', ')}): never sent`;
  return undefined;
}

/**
 * Selects the recent history that fits `budgetTokens`, newest first by whole tool-call groups: the
 * reusable window of every strategy that composes "a block + the recent history that fits".
 *
 * - The walk back from the newest message touches only what it keeps plus the first group that does
 *   not fit (early exit), over the ledger's cached per-message counts (only new messages are counted).
 * - The current turn (the newest user message and everything after it) is never dropped whole: when
 *   it does not fit, its tool outputs are truncated head + tail to fit; when that is not enough, the
 *   turn's older steps (whole tool-call groups) are left out oldest first, only as many as needed, so
 *   the newest steps that fit stay (outputs truncated) with the newest user message, and each left-out
 *   range is reported as `dropped`; at last the newest user message itself is truncated, with a
 *   visible marker. This touches only the current turn, whatever the history's length.
 * - Orphan tool results and calls without results are never sent; they are reported as `dropped` with
 *   the reason. Everything older than the window is one `dropped` range.
 *
 * @throws BudgetExceededError (`CTXKIT_BUDGET_EXCEEDED`) when even the truncated newest user message cannot fit
 */
export function selectHistoryWindow(options: SelectHistoryWindowOptions): HistoryWindow {
  const { history, counter } = options;
  const budget = Math.max(0, Math.floor(options.budgetTokens));
  const keepNewestUser = options.keepNewestUserMessage ?? true;
  const truncateTurn = options.truncateCurrentTurn ?? true;
  const ledger = options.ledger ?? new HistoryLedger(counter);
  const n = history.length;
  const start = Math.min(n, Math.max(0, Math.floor(options.startIndex ?? 0)));
  ledger.sync(history);

  const reductions: ReductionRecord[] = [];
  const kept: Array<{ from: number; to: number }> = [];
  const replaced = new Map<number, ChatMessage>();
  const outputCuts = new Map<ChatMessage, OutputCut>();
  let used = 0;
  let end = n;

  let newestUser = -1;
  if (keepNewestUser) {
    for (let index = n - 1; index >= start; index--) {
      if (history[index]!.role === 'user') {
        newestUser = index;
        break;
      }
    }
  }

  if (newestUser !== -1) {
    const turn = selectCurrentTurn(options, ledger, budget, newestUser, reductions, replaced, outputCuts, truncateTurn);
    used = turn.tokens;
    for (const range of turn.kept) kept.push(range);
    end = newestUser;
  }

  // Older history: whole groups, newest first, stop at the first that does not fit.
  const keep = (from: number, to: number): void => {
    const newer = kept[kept.length - 1];
    if (newer !== undefined && newer.from === to) newer.from = from;
    else kept.push({ from, to });
  };
  while (end > start) {
    const group = ledger.groupEndingAt(history, end);
    if (group.start < start) {
      // A unit cut by `startIndex`: its results would be sent without their call.
      pushMerged(
        reductions,
        dropRecord(start, end, 'tool results whose call lies before the selectable part (never sent)', 'orphan'),
      );
      end = start;
      break;
    }
    const reason = invalidGroupReason(group);
    if (reason) {
      pushMerged(reductions, dropRecord(group.start, group.end, reason, 'orphan'));
      end = group.start;
      continue;
    }
    let tokens = 0;
    for (let index = group.start; index < group.end && used + tokens <= budget; index++) {
      tokens += ledger.tokensWithin(history, index, budget - used - tokens);
    }
    if (used + tokens > budget) break;
    used += tokens;
    keep(group.start, group.end);
    end = group.start;
  }
  if (end > start) pushMerged(reductions, dropRecord(start, end, OLDER_THAN_WINDOW_REASON, 'older-than-window'));
  // Adjacent kept ranges are copied as one slice; only the current turn can hold truncated copies.
  const parts: Array<ReadonlyArray<Readonly<ChatMessage>>> = [];
  for (let position = kept.length - 1; position >= 0; position--) {
    const from = kept[position]!.from;
    let to = kept[position]!.to;
    while (position > 0 && kept[position - 1]!.from === to) to = kept[--position]!.to;
    const part = history.slice(from, to);
    if (replaced.size > 0) {
      for (let index = from; index < to; index++) {
        const copy = replaced.get(index);
        if (copy !== undefined) part[index - from] = copy;
      }
    }
    parts.push(part);
  }
  // One range (the usual window) is its own slice: no second copy.
  const messages =
    parts.length === 1 ? (parts[0] as ChatMessage[]) : ([] as ChatMessage[]).concat(...(parts as ChatMessage[][]));
  reductions.sort((a, b) => a.from - b.from);
  let droppedMessages = 0;
  let truncatedMessages = 0;
  for (const record of reductions) {
    if (record.action === 'dropped') droppedMessages += record.messages;
    else truncatedMessages += record.messages;
  }
  const fromIndex = kept.length > 0 ? kept[kept.length - 1]!.from : n;
  const window: HistoryWindow = {
    messages,
    fromIndex,
    reductions,
    tokens: used,
    droppedMessages,
    truncatedMessages,
  };
  if (outputCuts.size > 0) window.outputCuts = outputCuts;
  return window;
}

/** Reason of a `dropped` record for an older step of the current turn that did not fit. */
const OLDER_STEP_REASON = 'current turn over budget: older step of the current turn left out (oldest first)';

/**
 * How many of the turn's newest steps (newest first) can at most fit with the user message: either
 * whole, or with every tool output cut to {@link MIN_TRUNCATED_OUTPUT_TOKENS} (the least
 * `fitByTruncatingOutputs` gives one). Both bounds grow with the count, so each stops at its first miss.
 */
function planRecentSteps(
  steps: MessageGroup[],
  userGroup: MessageGroup,
  history: ReadonlyArray<Readonly<ChatMessage>>,
  sizes: Map<number, number>,
  budget: number,
): number {
  let whole = 0;
  let cut = 0;
  const add = (group: MessageGroup) => {
    for (let index = group.start; index < group.end; index++) {
      const size = sizes.get(index)!;
      whole += size;
      cut += history[index]!.role === 'tool' ? MIN_TRUNCATED_OUTPUT_TOKENS : size;
    }
  };
  add(userGroup);
  let count = 0;
  for (const step of steps) {
    add(step);
    if (whole > budget && cut > budget) break;
    count++;
  }
  return count;
}

interface TurnSelection {
  kept: Array<{ from: number; to: number }>;
  tokens: number;
}

/** The current turn: `[newestUser, n)`, made to fit by truncation when needed. */
function selectCurrentTurn(
  options: SelectHistoryWindowOptions,
  ledger: HistoryLedger,
  budget: number,
  newestUser: number,
  reductions: ReductionRecord[],
  replaced: Map<number, ChatMessage>,
  outputCuts: Map<ChatMessage, OutputCut>,
  truncateTurn: boolean,
): TurnSelection {
  const { history, counter } = options;
  const strategyId = options.strategyId ?? 'history-window';
  // Groups of the turn, newest first; invalid ones are reported and skipped.
  const groups: MessageGroup[] = [];
  let end = history.length;
  while (end > newestUser) {
    const group = groupEndingAt(history, end);
    const reason = invalidGroupReason(group);
    if (reason) pushMerged(reductions, dropRecord(group.start, group.end, reason, 'orphan'));
    else groups.push(group);
    end = group.start;
  }
  const sizes = new Map<number, number>();
  let total = 0;
  for (const group of groups) {
    for (let index = group.start; index < group.end; index++) {
      const tokens = ledger.tokensWithin(history, index, budget + 1);
      sizes.set(index, tokens);
      total += tokens;
    }
  }
  const asRanges = (chosen: MessageGroup[]) => chosen.map((group) => ({ from: group.start, to: group.end }));
  if (total <= budget) return { kept: asRanges(groups), tokens: total };
  if (!truncateTurn) {
    // Keep the newest groups that fit whole, drop the rest of the turn.
    const chosen: MessageGroup[] = [];
    let used = 0;
    for (const group of groups) {
      let tokens = 0;
      for (let index = group.start; index < group.end; index++) tokens += sizes.get(index)!;
      if (used + tokens > budget) {
        pushMerged(reductions, dropRecord(group.start, group.end, 'current turn: did not fit the budget', 'turn-step'));
        continue;
      }
      used += tokens;
      chosen.push(group);
    }
    return { kept: asRanges(chosen), tokens: used };
  }

  // 1) Truncate tool outputs; 2) then leave out the turn's older steps, oldest first, keeping the
  // newest steps that fit (outputs truncated); 3) then truncate the user message.
  const userGroup = groups[groups.length - 1]!;
  const steps = groups.slice(0, -1); // newest first
  const plan = planRecentSteps(steps, userGroup, history, sizes, budget);
  const fitSteps = (count: number) => {
    const chosen = [...steps.slice(0, count), userGroup];
    let whole = 0;
    for (const group of chosen) for (let index = group.start; index < group.end; index++) whole += sizes.get(index)!;
    if (whole <= budget)
      return {
        chosen,
        fitted: { changes: new Map<number, { message: ChatMessage; tokens: number }>(), tokens: whole },
      };
    const fitted = fitByTruncatingOutputs(history, chosen, sizes, budget, counter, ledger, options.heldCuts);
    return fitted ? { chosen, fitted } : undefined;
  };
  // The most steps that can fit is tried first (it fits unless a cut overshoots); otherwise binary search below it.
  let best = plan > 0 ? fitSteps(plan) : undefined;
  if (!best && plan > 1) {
    let low = 1;
    let high = plan - 1;
    while (low <= high) {
      const middle = (low + high) >> 1;
      const attempt = fitSteps(middle);
      if (attempt) {
        best = attempt;
        low = middle + 1;
      } else high = middle - 1;
    }
  }
  if (best) {
    const keptSteps = best.chosen.length - 1;
    for (const group of steps.slice(keptSteps))
      pushMerged(reductions, dropRecord(group.start, group.end, OLDER_STEP_REASON, 'turn-step'));
    for (const [index, change] of best.fitted.changes) {
      replaced.set(index, change.message);
      outputCuts.set(history[index] as ChatMessage, change);
      const ref = (history[index] as ToolMessage).output_ref?.id;
      reductions.push({
        action: 'truncated',
        from: index,
        to: index + 1,
        messages: 1,
        tokensBefore: sizes.get(index)! > budget ? undefined : sizes.get(index),
        tokensAfter: change.tokens,
        reason: 'current turn over budget: tool output truncated head + tail to fit',
        ...(ref !== undefined ? { recoverableFrom: 'tool-output-cache', refs: [ref] } : { recoverableFrom: 'history' }),
        cause: 'turn-output',
      } as ReductionRecord);
    }
    return { kept: asRanges(best.chosen), tokens: best.fitted.tokens };
  }
  // 3) Not even the newest step fits: only the newest user message, truncated when it alone exceeds the budget.
  for (const group of steps.slice(1))
    pushMerged(reductions, dropRecord(group.start, group.end, OLDER_STEP_REASON, 'turn-step'));
  const newestStep = steps[0];
  if (newestStep)
    pushMerged(
      reductions,
      dropRecord(
        newestStep.start,
        newestStep.end,
        'current turn over budget: dropped to keep the newest user message',
        'turn-step',
      ),
    );
  const user = history[newestUser] as UserMessage;
  const userTokens = sizes.get(newestUser)!;
  if (userTokens <= budget) return { kept: [{ from: newestUser, to: newestUser + 1 }], tokens: userTokens };
  const text = contentText(user.content);
  const overhead = userTokens > budget ? counter.countMessage({ role: 'user', content: '' }) : 0;
  const cut = truncateToFit(text, { kind: 'head-tail', maxTokens: Math.max(0, budget - overhead), counter });
  const copy: UserMessage = { ...user, content: cut.text };
  const tokens = counter.countMessage(copy);
  if (tokens > budget) {
    throw new BudgetExceededError(
      strategyId,
      { available: budget, required: tokens, sections: { 'newest user message (truncated)': tokens } },
      'the newest user message, even truncated,',
    );
  }
  replaced.set(newestUser, copy);
  reductions.push({
    action: 'truncated',
    from: newestUser,
    to: newestUser + 1,
    messages: 1,
    tokensAfter: tokens,
    reason: 'newest user message alone exceeds the budget: truncated head + tail with a marker',
    recoverableFrom: 'history',
    cause: 'newest-user',
  });
  return { kept: [{ from: newestUser, to: newestUser + 1 }], tokens };
}

/**
 * Fits the turn's tool outputs into the room its other messages leave: held cuts are sent again
 * while they fit (see {@link HeldOutputCuts}); otherwise the room (or its held share) is water-filled
 * among the outputs. Undefined when they cannot fit.
 */
function fitByTruncatingOutputs(
  history: ReadonlyArray<Readonly<ChatMessage>>,
  groups: MessageGroup[],
  sizes: Map<number, number>,
  budget: number,
  counter: ITokenCounter,
  ledger: HistoryLedger,
  held: HeldOutputCuts | undefined,
): { changes: Map<number, OutputCut>; tokens: number } | undefined {
  const outputs: number[] = [];
  let fixed = 0;
  for (const group of groups) {
    for (let index = group.start; index < group.end; index++) {
      if (history[index]!.role === 'tool') outputs.push(index);
      else fixed += sizes.get(index)!;
    }
  }
  if (outputs.length === 0) return undefined;
  const room = budget - fixed;
  if (room < outputs.length * MIN_TRUNCATED_OUTPUT_TOKENS) return undefined;
  const plan = (held && keepHeldCuts(history, outputs, sizes, room, held)) ?? {
    allot: waterFill(
      outputs,
      sizes,
      held ? Math.max(outputs.length * MIN_TRUNCATED_OUTPUT_TOKENS, Math.floor(room * held.ratio)) : room,
    ),
    reused: new Map<number, OutputCut>(),
  };
  const changes = new Map<number, OutputCut>();
  let tokens = fixed;
  for (const index of outputs) {
    const reused = plan.reused.get(index);
    if (reused) {
      changes.set(index, reused);
      tokens += reused.tokens;
      continue;
    }
    const size = sizes.get(index)!;
    const allowed = plan.allot.get(index)!;
    if (size <= allowed) {
      tokens += size;
      continue;
    }
    const cut = cutOutput(history[index] as ToolMessage, allowed, counter, ledger);
    changes.set(index, cut);
    tokens += cut.tokens;
  }
  return tokens <= budget ? { changes, tokens } : undefined;
}

/**
 * The held cuts of `outputs` sent again, the other outputs water-filled in what they leave; undefined
 * when there is no held cut among them, they no longer fit, or a new output would get less than
 * both its size and an even share of the room (the new outputs are not starved to keep old cuts).
 */
function keepHeldCuts(
  history: ReadonlyArray<Readonly<ChatMessage>>,
  outputs: number[],
  sizes: Map<number, number>,
  room: number,
  held: HeldOutputCuts,
): { allot: Map<number, number>; reused: Map<number, OutputCut> } | undefined {
  const reused = new Map<number, OutputCut>();
  const free: number[] = [];
  let left = room;
  for (const index of outputs) {
    const cut = held.cutOf(history[index]!);
    if (cut) {
      reused.set(index, cut);
      left -= cut.tokens;
    } else free.push(index);
  }
  if (reused.size === 0 || left < free.length * MIN_TRUNCATED_OUTPUT_TOKENS) return undefined;
  const even = Math.floor(room / outputs.length);
  const allot = waterFill(free, sizes, left);
  for (const index of free) if (allot.get(index)! < Math.min(sizes.get(index)!, even)) return undefined;
  return { allot, reused };
}

/** Smallest first, each output gets min(its size, a fair share of what is left of `room`). */
function waterFill(outputs: number[], sizes: Map<number, number>, room: number): Map<number, number> {
  const order = outputs.slice().sort((a, b) => sizes.get(a)! - sizes.get(b)!);
  const allot = new Map<number, number>();
  let left = room;
  order.forEach((index, position) => {
    const give = Math.min(sizes.get(index)!, Math.floor(left / (order.length - position)));
    allot.set(index, give);
    left -= give;
  });
  return allot;
}

/** `message` cut head + tail to `allowed` tokens (remembered by the ledger per allotment). */
function cutOutput(message: ToolMessage, allowed: number, counter: ITokenCounter, ledger: HistoryLedger): OutputCut {
  const remembered = ledger.truncations.get(message);
  if (remembered && remembered.allowed === allowed) return { message: remembered.message, tokens: remembered.tokens };
  const empty = counter.countMessage({ role: 'tool', tool_call_id: message.tool_call_id, content: '' });
  // An output held whole behind its ref gets a marker naming the ref, and where the elided part lies
  // in it when the text cut is the ref's own (not an excerpt of it, such as an in-context view).
  const text = contentText(message.content);
  const ref = message.output_ref;
  const refOptions = ref === undefined ? {} : { ref: ref.id, locate: holdsText(ref, text) };
  const cut = truncateToFit(text, {
    kind: 'head-tail',
    maxTokens: Math.max(0, allowed - empty),
    counter,
    ...refOptions,
  });
  const copy: ToolMessage = { ...message, content: cut.text };
  // A tool message's text is its content, so its count is the cut text's count plus the overhead.
  const tokens = cut.tokens !== undefined ? cut.tokens + empty : counter.countMessage(copy);
  ledger.truncations.set(message, { allowed, message: copy, tokens });
  return { message: copy, tokens };
}

/** True when `ref` describes `text` itself: the same UTF-8 size and (when the ref counts them) lines. */
function holdsText(ref: ToolOutputRef, text: string): boolean {
  if (ref.byte_size === undefined || ref.byte_size !== utf8ByteLength(text)) return false;
  if (ref.line_count === undefined) return true;
  return ref.line_count === countLineFeeds(text) + (text.length === 0 || text.endsWith('\n') ? 0 : 1);
}
