import { BudgetExceededError, groupAt, type ChatMessage, type ToolMessage, type UserMessage } from '@ctxkit/core';
import type { ReductionLog } from './reduction-log';
import { trimToolOutputs } from './trim-tool-outputs';
import { cutToChars } from './utf8-text';
import type { ViewEntry } from './view-entry';

/** Inputs of {@link fitViewToBudget}. */
export interface FitViewOptions {
  strategyId: string;
  /** Tokens the payload may use. */
  available: number;
  /** Tokens of what is always sent: system prompt, dynamic context, tool definitions. */
  fixedTokens: number;
  countMessage: (message: ChatMessage) => number;
  log: ReductionLog;
  withContent: (message: ToolMessage, content: string) => ToolMessage;
}

/** Marker appended to a user message cut to fit. */
export const USER_MESSAGE_CUT_MARKER = '\n[… message cut to fit the context window]';

/**
 * Fits a view into the budget with the escalation of seed 004, cheapest and most recoverable first:
 * (1) older tool outputs become `[tool output trimmed; ref=…]`; (2) the oldest whole units (a tool
 * call with all its results) before the current turn are dropped, the caller keeps them;
 * (3) the current turn's own outputs are trimmed to their refs; (4) the newest user message is cut
 * with a visible marker. The retain/summary messages of a compaction are kept.
 * @throws BudgetExceededError (`CTXKIT_BUDGET_EXCEEDED`) when even that does not fit
 */
export function fitViewToBudget(entries: ReadonlyArray<ViewEntry>, options: FitViewOptions): ViewEntry[] {
  const { available, fixedTokens, countMessage, log } = options;
  let view = [...entries];
  const total = (): number => fixedTokens + view.reduce((sum, entry) => sum + countMessage(entry.message), 0);
  let used = total();
  if (used <= available) return view;

  const currentTurn = (): number => {
    for (let index = view.length - 1; index >= 0; index--) {
      const entry = view[index]!;
      if (entry.message.role === 'user' && entry.source !== null) return index;
    }
    return view.length;
  };

  // (1) Older tool outputs to placeholders.
  const historyBudget = Math.max(0, available - fixedTokens - nonToolTokens(view, countMessage));
  view = trimToolOutputs(view, {
    budgetTokens: historyBudget,
    tokensOf: countMessage,
    log,
    reason: 'tool output trimmed to fit the context window',
    protectFrom: currentTurn(),
    withContent: options.withContent,
  }).entries;
  used = total();
  if (used <= available) return view;

  // (2) Drop the oldest whole units before the current turn (after the compaction prefix).
  let start = 0;
  while (start < view.length && view[start]!.source === null) start++;
  const stop = currentTurn();
  const messages = view.map((entry) => entry.message);
  let cut = start;
  while (used > available && cut < stop) {
    const group = groupAt(messages, cut);
    const end = Math.min(group.end, stop);
    for (let index = cut; index < end; index++) {
      const entry = view[index]!;
      used -= countMessage(entry.message);
      if (entry.source !== null) log.add('dropped', { from: entry.source }, { reason: 'oldest messages left out to fit the context window', recoverableFrom: 'history' });
    }
    cut = end;
  }
  if (cut > start) view = [...view.slice(0, start), ...view.slice(cut)];
  if (used <= available) return view;

  // (3) The current turn's tool outputs to placeholders.
  view = trimToolOutputs(view, {
    budgetTokens: Math.max(0, available - fixedTokens - nonToolTokens(view, countMessage)),
    tokensOf: countMessage,
    log,
    reason: 'tool output of the current turn trimmed to fit the context window',
    withContent: options.withContent,
  }).entries;
  used = total();
  if (used <= available) return view;

  // (4) Cut the newest user message with a visible marker.
  const userIndex = currentTurn();
  const userEntry = view[userIndex];
  if (userEntry && userEntry.message.role === 'user' && typeof userEntry.message.content === 'string') {
    const message = userEntry.message as UserMessage;
    const over = used - available;
    const before = countMessage(message);
    const text = message.content as string;
    let keep = Math.max(0, text.length - Math.ceil((over + 16) * 4));
    let copy: UserMessage = { ...message, content: cutToChars(text, keep) + USER_MESSAGE_CUT_MARKER };
    while (countMessage(copy) - before + used > available && keep > 0) {
      keep = Math.floor(keep / 2);
      copy = { ...message, content: cutToChars(text, keep) + USER_MESSAGE_CUT_MARKER };
    }
    const after = countMessage(copy);
    view[userIndex] = { ...userEntry, message: copy };
    used += after - before;
    if (userEntry.source !== null) {
      log.add('truncated', { from: userEntry.source }, { reason: 'newest user message cut to fit the context window', recoverableFrom: 'history', tokensBefore: before, tokensAfter: after });
    }
    if (used <= available) return view;
  }
  throw new BudgetExceededError(options.strategyId, { available, required: used, sections: { fixed: fixedTokens, history: used - fixedTokens } }, 'the current turn');
}

function nonToolTokens(view: ReadonlyArray<ViewEntry>, countMessage: (message: ChatMessage) => number): number {
  return view.reduce((sum, entry) => (entry.message.role === 'tool' ? sum : sum + countMessage(entry.message)), 0);
}
