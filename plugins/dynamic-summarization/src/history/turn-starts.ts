import { type ChatMessage } from '@ctxkit/core';
import { TurnIndex } from '@ctxkit/core/strategy-kit';

import { computedOnce } from '../computed-once';

/**
 * One turn index per conversation, keyed by the identity of its first message: the composition, the
 * re-sync check and the fold scheduler ask about the same growing history several times a turn, and
 * each question then reads only the messages that are new since the previous one.
 */
const indexes = new WeakMap<Readonly<ChatMessage>, TurnIndex>();

function turnIndexOf(history: ReadonlyArray<Readonly<ChatMessage>>): TurnIndex {
  const index = computedOnce(indexes, history[0]!, () => new TurnIndex());
  index.sync(history);
  return index;
}

/**
 * Indexes of the user messages in `history[from, to)`: a turn starts at a user message. Tool-call
 * groups never contain a user message, so cutting at a turn start never splits a group.
 * Incremental: O(new messages + log turns) plus the turns returned while the history grows.
 */
export function turnStarts(history: ReadonlyArray<Readonly<ChatMessage>>, from = 0, to = history.length): number[] {
  if (history.length === 0) return [];
  return turnIndexOf(history).startsWithin(from, to);
}

/** Number of turns (user messages) in `history[from, to)`, without listing them. */
export function turnCount(history: ReadonlyArray<Readonly<ChatMessage>>, from = 0, to = history.length): number {
  if (history.length === 0) return 0;
  return turnIndexOf(history).turnsWithin(from, to);
}
