import type { ChatMessage } from '@ctxkit/core';

/** Where an agent loop would have called the model, and where a turn ended. */
export interface ReplayPoint {
  /** `compose`: the model is called with `history = messages.slice(1, end)`; `turn-complete`: a turn ended there. */
  kind: 'compose' | 'turn-complete';
  end: number;
}

/**
 * The replay schedule of a recorded conversation: a compose before every assistant message (the
 * agent asked the model then), a turn end after the last assistant message before the next user
 * message, and a final compose when the record ends on a message the model has not answered yet.
 */
export function replayPoints(messages: ReadonlyArray<ChatMessage>): ReplayPoint[] {
  const points: ReplayPoint[] = [];
  for (let index = 1; index < messages.length; index++) {
    const message = messages[index]!;
    if (message.role === 'assistant') points.push({ kind: 'compose', end: index });
    const next = messages[index + 1];
    if (message.role === 'assistant' && (next === undefined || next.role === 'user')) {
      points.push({ kind: 'turn-complete', end: index + 1 });
    }
  }
  const last = messages[messages.length - 1];
  if (last && last.role !== 'assistant' && messages.length > 1) points.push({ kind: 'compose', end: messages.length });
  return points;
}
