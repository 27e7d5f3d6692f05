import { HistoryValidationError, type ChatMessage } from '@ctxkit/core';

const ROLES = new Set(['system', 'user', 'assistant', 'tool']);

/**
 * Rejects a history the strategy cannot use: a message that is not an object, an unknown role, a
 * tool message without `tool_call_id`. Reads only.
 * @throws HistoryValidationError (`CTXKIT_HISTORY_INVALID`) naming the first bad index
 */
export function assertHistory(history: ReadonlyArray<Readonly<ChatMessage>>): void {
  if (!Array.isArray(history)) throw new HistoryValidationError(-1, 'the history must be an array of messages');
  history.forEach((message, index) => {
    if (message === null || typeof message !== 'object') throw new HistoryValidationError(index, 'not a message object');
    const role = (message as { role?: unknown }).role;
    if (typeof role !== 'string' || !ROLES.has(role)) throw new HistoryValidationError(index, `unknown role ${JSON.stringify(role)}`);
    if (role === 'tool' && typeof (message as { tool_call_id?: unknown }).tool_call_id !== 'string') {
      throw new HistoryValidationError(index, 'a tool message needs a tool_call_id');
    }
  });
}
