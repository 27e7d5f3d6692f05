import {
  BudgetExceededError,
  contentText,
  groupEndingAt,
  type ChatMessage,
  type MessageGroup,
  type ReductionRecord,
  type TokenCounter,
} from '@ctxkit/core';
import { truncateToTokens } from './truncate-to-tokens';

/** Input of {@link selectRecentTurns}. */
export interface SelectRecentTurnsOptions {
  history: ReadonlyArray<Readonly<ChatMessage>>;
  /** Turns kept verbatim (a turn starts at a user message); the current turn is always kept. */
  recentTurns: number;
  /** Tokens the history section may use. */
  budget: number;
  counter: TokenCounter;
  /** History indexes `<= coveredThrough` were read by a successful extraction (their facts are in the state). */
  coveredThrough: number;
  strategyId: string;
}

/** The verbatim part of the payload and what happened to the rest. */
export interface RecentTurnsSelection {
  /** Messages to send, oldest first (copies where truncated; the caller's objects otherwise). */
  messages: ChatMessage[];
  tokens: number;
  /** Index of the first history message kept (history.length when none). */
  firstKept: number;
  reductions: ReductionRecord[];
}

function dropRecords(from: number, to: number, coveredThrough: number, reason: string): ReductionRecord[] {
  const records: ReductionRecord[] = [];
  if (to <= from) return records;
  const split = Math.min(to, Math.max(from, coveredThrough + 1));
  if (split > from) records.push({ action: 'dropped', from, to: split, messages: split - from, tokensAfter: 0, reason, recoverableFrom: 'entity-state' });
  if (to > split) records.push({ action: 'dropped', from: split, to, messages: to - split, tokensAfter: 0, reason, recoverableFrom: 'history' });
  return records;
}

/**
 * Keeps the last `recentTurns` turns verbatim, by whole tool-call groups, newest first, within the
 * budget. The current turn (from the newest user message on) is always kept: when it alone does
 * not fit, its tool outputs are cut (largest first, with a visible marker), then the user message.
 * A tool call without its results, or a result without its call, is never sent (reported as dropped).
 * Every drop and cut is returned as a reduction over history indexes; older turns whose facts the
 * state holds are `recoverableFrom: 'entity-state'`, the rest `'history'`.
 * @throws BudgetExceededError (`CTXKIT_BUDGET_EXCEEDED`) when not even the truncated current turn fits
 */
export function selectRecentTurns(options: SelectRecentTurnsOptions): RecentTurnsSelection {
  const { history, counter, coveredThrough } = options;
  const n = history.length;
  if (n === 0) return { messages: [], tokens: 0, firstKept: 0, reductions: [] };
  const userIndexes: number[] = [];
  history.forEach((message, index) => {
    if (message.role === 'user') userIndexes.push(index);
  });
  const currentStart = userIndexes.length > 0 ? userIndexes[userIndexes.length - 1]! : 0;
  const windowStart = userIndexes.length > options.recentTurns ? userIndexes[userIndexes.length - options.recentTurns]! : 0;
  const reductions: ReductionRecord[] = [];
  const groups: MessageGroup[] = [];
  for (let end = n; end > windowStart; ) {
    const group = groupEndingAt(history, end);
    groups.push(group);
    end = group.start;
  }
  const unsendable = (group: MessageGroup) => group.kind === 'orphan-tool' || group.kind === 'incomplete-tool-exchange';
  const keptGroups: MessageGroup[] = [];
  let tokens = 0;
  let firstKept = n;
  let overflowAt = -1;
  for (const group of groups) {
    if (unsendable(group)) {
      reductions.push({
        action: 'dropped',
        from: group.start,
        to: group.end,
        messages: group.end - group.start,
        tokensAfter: 0,
        reason: group.kind === 'orphan-tool' ? 'tool result without its call' : `tool call without its result (${(group.missingCallIds ?? []).join(', ')})`,
        recoverableFrom: 'history',
      });
      continue;
    }
    const groupTokens = counter.countMessages(history.slice(group.start, group.end));
    const isCurrent = group.start >= currentStart;
    if (!isCurrent && tokens + groupTokens > options.budget) {
      overflowAt = group.end;
      break;
    }
    keptGroups.push(group);
    tokens += groupTokens;
    firstKept = group.start;
  }
  keptGroups.reverse();
  if (overflowAt !== -1) reductions.push(...dropRecords(windowStart, overflowAt, coveredThrough, 'older recent turns did not fit the budget'));
  reductions.push(...dropRecords(0, windowStart, coveredThrough, `older than the last ${options.recentTurns} turn(s)`));

  const messages: ChatMessage[] = [];
  const indexes: number[] = [];
  for (const group of keptGroups) {
    for (let index = group.start; index < group.end; index++) {
      messages.push(history[index] as ChatMessage);
      indexes.push(index);
    }
  }
  if (tokens > options.budget) tokens = fitCurrentTurn(messages, indexes, currentStart, options, reductions);
  reductions.sort((a, b) => a.from - b.from || a.to - b.to);
  return { messages, tokens, firstKept: messages.length > 0 ? firstKept : n, reductions };
}

/** Cuts the current turn's tool outputs, then the user message, until the history fits. */
function fitCurrentTurn(messages: ChatMessage[], indexes: number[], currentStart: number, options: SelectRecentTurnsOptions, reductions: ReductionRecord[]): number {
  const { counter, budget } = options;
  const measureAs = (message: ChatMessage) => (text: string) => counter.countMessage({ ...message, content: text } as ChatMessage);
  const total = () => counter.countMessages(messages);
  const cut = (position: number, allowance: number): boolean => {
    const original = messages[position]!;
    const text = contentText(original.content ?? null);
    const before = counter.countMessage(original);
    const shortened = truncateToTokens(text, allowance, measureAs(original));
    if (shortened === null) return false;
    const replacement = { ...original, content: shortened } as ChatMessage;
    messages[position] = replacement;
    const index = indexes[position]!;
    reductions.push({
      action: 'truncated',
      from: index,
      to: index + 1,
      messages: 1,
      tokensBefore: before,
      tokensAfter: counter.countMessage(replacement),
      reason: 'the current turn did not fit the budget',
      recoverableFrom: 'history',
    });
    return true;
  };
  // 1. Tool outputs of the current turn share what the other messages leave, smallest first.
  const toolPositions = messages.map((message, position) => ({ message, position })).filter(({ message, position }) => message.role === 'tool' && indexes[position]! >= currentStart);
  const otherTokens = total() - toolPositions.reduce((sum, { message }) => sum + counter.countMessage(message), 0);
  let remaining = budget - otherTokens;
  const ordered = [...toolPositions].sort((a, b) => counter.countMessage(a.message) - counter.countMessage(b.message) || a.position - b.position);
  ordered.forEach(({ message, position }, i) => {
    const share = Math.max(0, Math.floor(remaining / (ordered.length - i)));
    const own = counter.countMessage(message);
    if (own > share) cut(position, share);
    remaining -= counter.countMessage(messages[position]!);
  });
  // 2. Then the newest user message.
  let used = total();
  if (used > budget) {
    const userPosition = messages.findIndex((message, position) => message.role === 'user' && indexes[position] === currentStart);
    if (userPosition !== -1) {
      const allowance = budget - (used - counter.countMessage(messages[userPosition]!));
      if (allowance > 0) cut(userPosition, allowance);
      used = total();
    }
  }
  if (used > budget) {
    throw new BudgetExceededError(options.strategyId, { available: budget, required: used, sections: { 'current turn': used } }, 'the current turn, even with its tool outputs and user message cut,');
  }
  return used;
}
