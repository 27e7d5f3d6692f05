import type { ChatMessage, PayloadStats, ReductionAction } from '@ctxkit/core';
import { contentText, findPayloadProblems, type PayloadProblem } from '@ctxkit/core/strategy-kit';

/** What one model call of a replay received, as counted and checked independently of the strategy. */
export interface ReplayedCallReport {
  call: number;
  /** The user turn (1-based) the call belongs to. */
  turn: number;
  /** Messages sent, as ctxkit messages. */
  messages: number;
  /** Messages of the conversation the strategy was given at that call. */
  historyMessages: number;
  /** Tokens of the request, by js-tiktoken (o200k), counted as ctxkit counts. */
  tokens: number;
  /** Provider-validity problems of the request (orphan results, calls without results ...). */
  problems: PayloadProblem[];
  /** The turn's user message is in the request, verbatim. */
  newestUserPresent: boolean;
  /** History messages the strategy left out or changed for this call, by action. */
  reductions: Partial<Record<ReductionAction, number>>;
}

/**
 * The checks of one request: its provider-validity problems, whether the turn's user message
 * `userText` is in it verbatim, and what the strategy's payload `stats` left out or changed.
 */
export function checkReplayedRequest(
  chat: readonly ChatMessage[],
  userText: string,
  stats: PayloadStats | undefined,
): Pick<ReplayedCallReport, 'problems' | 'newestUserPresent' | 'reductions'> {
  return {
    problems: findPayloadProblems(chat),
    newestUserPresent: chat.some((message) => message.role === 'user' && contentText(message.content) === userText),
    reductions: reductionCounts(stats),
  };
}

/**
 * History messages the payload's strategy left out or changed, by reduction action (actions that touched none are
 * absent).
 */
function reductionCounts(stats: PayloadStats | undefined): Partial<Record<ReductionAction, number>> {
  const counts: Partial<Record<ReductionAction, number>> = {};
  for (const reduction of stats?.reductions ?? [])
    if (reduction.messages > 0) counts[reduction.action] = (counts[reduction.action] ?? 0) + reduction.messages;
  return counts;
}
