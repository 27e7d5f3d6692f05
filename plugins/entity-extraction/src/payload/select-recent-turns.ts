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

  const entries: KeptEntry[] = [];
  for (const group of keptGroups) {
    for (let index = group.start; index < group.end; index++) entries.push({ index, groupStart: group.start, message: history[index] as ChatMessage });
  }
  let kept = entries;
  if (tokens > options.budget) ({ entries: kept, tokens } = fitCurrentTurn(entries, currentStart, options, reductions));
  reductions.sort((a, b) => a.from - b.from || a.to - b.to);
  return { messages: kept.map((entry) => entry.message), tokens, firstKept: kept.length > 0 ? kept[0]!.index : n, reductions };
}

interface KeptEntry {
  index: number;
  groupStart: number;
  message: ChatMessage;
}

/**
 * Fits an oversized current turn: its tool outputs share what the other messages leave (smallest
 * first, each cut with a marker); then older tool exchanges of this turn are left out (oldest first,
 * never the user message or the newest unit); then the user message is cut.
 */
function fitCurrentTurn(
  entries: KeptEntry[],
  currentStart: number,
  options: SelectRecentTurnsOptions,
  reductions: ReductionRecord[],
): { entries: KeptEntry[]; tokens: number } {
  const { counter, budget } = options;
  let kept = [...entries];
  const total = () => counter.countMessages(kept.map((entry) => entry.message));
  const truncations = new Map<number, ReductionRecord>();
  const cut = (entry: KeptEntry, allowance: number): void => {
    const original = entry.message;
    const text = contentText(original.content ?? null);
    const before = counter.countMessage(original);
    const shortened = truncateToTokens(text, allowance, (candidate) => counter.countMessage({ ...original, content: candidate } as ChatMessage));
    if (shortened === null) return;
    entry.message = { ...original, content: shortened } as ChatMessage;
    truncations.set(entry.index, {
      action: 'truncated',
      from: entry.index,
      to: entry.index + 1,
      messages: 1,
      tokensBefore: before,
      tokensAfter: counter.countMessage(entry.message),
      reason: 'the current turn did not fit the budget',
      recoverableFrom: 'history',
    });
  };
  kept = kept.map((entry) => ({ ...entry }));
  // 1. Tool outputs of the current turn share what the other messages leave, smallest first.
  const tools = kept.filter((entry) => entry.message.role === 'tool' && entry.index >= currentStart);
  let remaining = budget - (total() - tools.reduce((sum, entry) => sum + counter.countMessage(entry.message), 0));
  const ordered = [...tools].sort((a, b) => counter.countMessage(a.message) - counter.countMessage(b.message) || a.index - b.index);
  ordered.forEach((entry, i) => {
    const share = Math.max(0, Math.floor(remaining / (ordered.length - i)));
    if (counter.countMessage(entry.message) > share) cut(entry, share);
    remaining -= counter.countMessage(entry.message);
  });
  let used = total();
  // 2. Older units of the current turn (after its user message, before its newest unit), oldest first.
  if (used > budget) {
    const starts = [...new Set(kept.filter((entry) => entry.index > currentStart).map((entry) => entry.groupStart))];
    const droppable = starts.slice(0, -1);
    const droppedStarts = new Set<number>();
    for (const start of droppable) {
      if (used <= budget) break;
      droppedStarts.add(start);
      const group = kept.filter((entry) => entry.groupStart === start);
      used -= counter.countMessages(group.map((entry) => entry.message));
      for (const entry of group) truncations.delete(entry.index);
      const from = group[0]!.index;
      const to = group[group.length - 1]!.index + 1;
      reductions.push({ action: 'dropped', from, to, messages: to - from, tokensAfter: 0, reason: 'the current turn did not fit the budget: an older unit of it was left out', recoverableFrom: 'history' });
    }
    kept = kept.filter((entry) => !droppedStarts.has(entry.groupStart));
    used = total();
  }
  // 3. Then the newest user message.
  if (used > budget) {
    const user = kept.find((entry) => entry.message.role === 'user' && entry.index === currentStart);
    if (user) {
      const allowance = budget - (used - counter.countMessage(user.message));
      if (allowance > 0) cut(user, allowance);
      used = total();
    }
  }
  reductions.push(...truncations.values());
  if (used > budget) {
    throw new BudgetExceededError(options.strategyId, { available: budget, required: used, sections: { 'current turn': used } }, 'the current turn, even with its tool outputs and user message cut,');
  }
  return { entries: kept, tokens: used };
}
