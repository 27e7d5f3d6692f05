import { type ChatMessage, HistoryValidationError } from '@ctxkit/core';

import { fromResponsesItems } from './responses-items';

type Item = Record<string, unknown>;

/** A function result's output as text: a string, a `{type: "text", text}` part, or a list of parts. */
function outputText(output: unknown): string {
  if (typeof output === 'string') return output;
  const parts = Array.isArray(output) ? output : [output];
  return parts
    .map((part) => {
      if (typeof part !== 'object' || part === null) return '';
      const { type, text } = part as Item;
      return typeof text === 'string' ? text : `[${String(type)}]`;
    })
    .join('');
}

/**
 * OpenAI Agents SDK items (`result.history`, a session's items) → ctxkit messages. They are the
 * Responses input items with camelCase call ids: each `function_call` (`callId`) and
 * `function_call_result` (`callId`, `output` a string or a `{type: "text"}` part) is read as the
 * Responses `function_call` and `function_call_output`, the rest as {@link fromResponsesItems} reads
 * it; hosted tool calls and other items ctxkit has no slot for are left out.
 * @throws HistoryValidationError (`CTXKIT_HISTORY_INVALID`) naming the item that is not one
 */
export function fromAgentsItems(items: readonly unknown[]): ChatMessage[] {
  return fromResponsesItems(
    items.map((raw, index) => {
      if (typeof raw !== 'object' || raw === null) return raw;
      const item = raw as Item;
      if (item.type !== 'function_call' && item.type !== 'function_call_result') return item;
      if (typeof item.callId !== 'string')
        throw new HistoryValidationError(index, `a ${item.type} needs a string callId`);
      if (item.type === 'function_call')
        return { type: 'function_call', call_id: item.callId, name: item.name, arguments: item.arguments };
      return { type: 'function_call_output', call_id: item.callId, output: outputText(item.output) };
    }),
  );
}
