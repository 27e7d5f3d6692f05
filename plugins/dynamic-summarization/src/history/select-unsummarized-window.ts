import {
  BudgetExceededError,
  contentText,
  groupEndingAt,
  type ChatMessage,
  type ReductionRecord,
  type TokenCounter,
  type ToolMessage,
  type UserMessage,
} from '@ctxkit/core';
import { truncateMiddle } from './truncate-middle';

/** The recent history chosen for a payload. */
export interface WindowSelection {
  /** Messages to send, oldest first: the caller's objects, or truncated copies. */
  messages: ChatMessage[];
  tokens: number;
  /** Drops and truncations, as ranges of history indexes. */
  reductions: ReductionRecord[];
  dropped: number;
  truncated: number;
}

/** Smallest share of tokens worth giving a truncated tool output. */
const MIN_TRUNCATED_TOKENS = 24;

function pushRange(reductions: ReductionRecord[], record: ReductionRecord): void {
  const last = reductions[reductions.length - 1];
  if (last && last.action === record.action && last.reason === record.reason && last.from === record.to) {
    last.from = record.from;
    last.messages += record.messages;
    if (last.tokensBefore !== undefined && record.tokensBefore !== undefined) last.tokensBefore += record.tokensBefore;
    return;
  }
  reductions.push(record);
}

/**
 * The sliding window's rules over the unsummarized part of a history (`history[from, end)`):
 * newest first by whole tool-call groups into `budget` tokens; older groups dropped. The current
 * turn (from the newest user message on) is never dropped whole: the newest user message is always
 * kept (cut to head + tail with a marker when it alone is too large), and the turn's oversized tool
 * outputs are truncated to fit instead. A call without its results, or a result without its call,
 * is never sent (dropped and reported). Never mutates its input.
 *
 * @throws BudgetExceededError (`CTXKIT_BUDGET_EXCEEDED`) when not even a truncated newest user
 * message fits
 */
export function selectUnsummarizedWindow(
  strategyId: string,
  history: ReadonlyArray<Readonly<ChatMessage>>,
  from: number,
  budget: number,
  counter: TokenCounter,
): WindowSelection {
  let lastUser = -1;
  for (let index = history.length - 1; index >= from; index--) {
    if (history[index]!.role === 'user') {
      lastUser = index;
      break;
    }
  }
  const userTokens = lastUser === -1 ? 0 : counter.countMessage(history[lastUser]!);
  const kept: ChatMessage[][] = [];
  const newestFirst: ReductionRecord[] = [];
  let remaining = budget;
  let dropped = 0;
  let truncated = 0;
  let closed = false;
  let currentTurnCut = false;

  for (let end = history.length; end > from; ) {
    const group = groupEndingAt(history, end);
    end = group.start;
    const messages = history.slice(group.start, group.end) as ChatMessage[];
    const cost = counter.countMessages(messages);
    const drop = (reason: string): void => {
      dropped += messages.length;
      pushRange(newestFirst, { action: 'dropped', from: group.start, to: group.end, messages: messages.length, tokensBefore: cost, tokensAfter: 0, reason, recoverableFrom: 'history' });
    };
    if (group.kind === 'incomplete-tool-exchange') {
      drop('tool call without its results (never sent)');
      continue;
    }
    if (group.kind === 'orphan-tool') {
      drop('tool result without its call (never sent)');
      continue;
    }
    if (closed) {
      drop('outside the window (oldest unsummarized history first)');
      continue;
    }
    const inCurrentTurn = lastUser !== -1 && group.start > lastUser;
    if (group.start === lastUser) {
      // The newest user message: always present, cut to fit when it alone is too large.
      if (cost <= remaining) {
        kept.push(messages);
        remaining -= cost;
      } else {
        const original = messages[0] as UserMessage;
        const available = remaining - 4;
        if (available < MIN_TRUNCATED_TOKENS) {
          throw new BudgetExceededError(strategyId, { available: budget, required: Math.min(cost, MIN_TRUNCATED_TOKENS + 4), sections: { history: cost } }, 'the newest user message');
        }
        const copy: UserMessage = { ...original, content: truncateMiddle(contentText(original.content), available, counter, 'characters of this message left out to fit the context') };
        const after = counter.countMessage(copy);
        kept.push([copy]);
        remaining -= after;
        truncated += 1;
        pushRange(newestFirst, { action: 'truncated', from: group.start, to: group.end, messages: 1, tokensBefore: cost, tokensAfter: after, reason: 'the newest user message alone exceeds the budget', recoverableFrom: 'history' });
      }
      continue;
    }
    const room = remaining - (inCurrentTurn ? userTokens : 0);
    if (inCurrentTurn && currentTurnCut) {
      drop('current turn: no room left after truncation');
      continue;
    }
    if (cost <= room) {
      kept.push(messages);
      remaining -= cost;
      continue;
    }
    if (!inCurrentTurn) {
      closed = true;
      drop('outside the window (oldest unsummarized history first)');
      continue;
    }
    // Current turn: truncate its tool outputs to fit instead of dropping it.
    const tools = messages.filter((message) => message.role === 'tool');
    const fixed = counter.countMessages(messages.filter((message) => message.role !== 'tool'));
    const share = tools.length === 0 ? 0 : Math.floor((room - fixed) / tools.length) - 8;
    if (share >= MIN_TRUNCATED_TOKENS) {
      const copies = messages.map((message) =>
        message.role === 'tool'
          ? ({ ...message, content: truncateMiddle(contentText(message.content), share, counter, 'characters of this tool output left out to fit the context') } as ToolMessage)
          : message,
      );
      const after = counter.countMessages(copies);
      if (after <= room) {
        kept.push(copies);
        remaining -= after;
        truncated += tools.length;
        pushRange(newestFirst, { action: 'truncated', from: group.start, to: group.end, messages: tools.length, tokensBefore: cost, tokensAfter: after, reason: 'current turn: oversized tool output cut to fit', recoverableFrom: 'history' });
        continue;
      }
    }
    currentTurnCut = true;
    drop('current turn: no room left after truncation');
  }
  kept.reverse();
  const out = kept.flat();
  return { messages: out, tokens: budget - remaining, reductions: newestFirst.reverse(), dropped, truncated };
}
