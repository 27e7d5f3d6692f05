import type { ChatMessage } from '../contracts/chat-message';
import { HistoryValidationError } from '../errors/history-validation-error';

const ROLES = new Set(['system', 'user', 'assistant', 'tool']);

/**
 * Rejects a message a strategy cannot use: not an object, an unknown role, a tool message without
 * `tool_call_id`, content of the wrong type. Reads only.
 * @throws HistoryValidationError (`CTXKIT_HISTORY_INVALID`) naming the index
 */
export function assertMessageShape(message: unknown, index: number): asserts message is ChatMessage {
  if (message === null || typeof message !== 'object') throw new HistoryValidationError(index, 'not a message object');
  const { role, content, tool_call_id: toolCallId, tool_calls: toolCalls } = message as Record<string, unknown>;
  if (typeof role !== 'string' || !ROLES.has(role))
    throw new HistoryValidationError(index, `unknown role ${JSON.stringify(role)}`);
  if (role === 'tool' && typeof toolCallId !== 'string')
    throw new HistoryValidationError(index, 'a tool message needs a string tool_call_id');
  if (content !== null && content !== undefined && typeof content !== 'string' && !Array.isArray(content)) {
    throw new HistoryValidationError(index, 'content must be a string, an array of parts, or null');
  }
  if (toolCalls !== undefined && (role !== 'assistant' || !Array.isArray(toolCalls))) {
    throw new HistoryValidationError(index, 'tool_calls must be an array on an assistant message');
  }
}

/**
 * Checks every message of `history` from index `from` (so that a strategy checks only what is new
 * since its last call).
 * @throws HistoryValidationError (`CTXKIT_HISTORY_INVALID`) naming the first bad index
 */
export function assertHistoryShape(history: ReadonlyArray<unknown>, from = 0): void {
  if (!Array.isArray(history)) throw new HistoryValidationError(-1, 'the history must be an array of messages');
  for (let index = from; index < history.length; index++) assertMessageShape(history[index], index);
}
