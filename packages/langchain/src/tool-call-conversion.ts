import type { ToolCall } from '@ctxkit/core';

import { LangChainMessageError } from './langchain-errors';

/** A LangChain tool call as `AIMessage.tool_calls` holds it. */
export interface LangChainToolCall {
  type?: 'tool_call';
  id?: string;
  name: string;
  args: Record<string, unknown>;
}

/** A call whose arguments are not a JSON object, as `AIMessage.invalid_tool_calls` holds it. */
export interface LangChainInvalidToolCall {
  type: 'invalid_tool_call';
  id?: string;
  name?: string;
  args?: string;
  error?: string;
}

/**
 * The ctxkit tool call of a LangChain one: same id and name, `args` as JSON text.
 * @throws LangChainMessageError (`CTXKIT_HISTORY_INVALID`) for a call without an id, or whose args are not
 *   JSON-serializable
 */
export function toCtxkitToolCall(call: LangChainToolCall, index: number): ToolCall {
  if (typeof call.id !== 'string') {
    throw new LangChainMessageError(
      index,
      `tool call "${call.name}" has no id`,
      'Give every tool call an id (chat models do; set `id` when you build an AIMessage with tool_calls yourself), ' +
        'so that its ToolMessage can answer it.',
    );
  }
  let text: string | undefined;
  try {
    text = JSON.stringify(call.args ?? {});
  } catch (cause) {
    throw new LangChainMessageError(
      index,
      `the args of tool call "${call.name}" are not JSON (${String(cause)})`,
      'Use JSON values (no BigInt, functions or cycles) in tool call args.',
    );
  }
  return { id: call.id, type: 'function', function: { name: call.name, arguments: text ?? '{}' } };
}

/**
 * What a ctxkit tool call becomes in LangChain: a tool call, or an invalid one when its arguments are not a JSON
 * object.
 */
export type ConvertedToolCall = { valid: LangChainToolCall } | { invalid: LangChainInvalidToolCall };

/** The LangChain tool call of a ctxkit one: `arguments` parsed into `args` (`''` reads as `{}`). */
export function toLangChainToolCall(call: ToolCall): ConvertedToolCall {
  const text = call.function.arguments;
  let args: unknown;
  try {
    args = text.trim() === '' ? {} : JSON.parse(text);
  } catch {
    args = undefined;
  }
  if (typeof args !== 'object' || args === null || Array.isArray(args)) {
    return {
      invalid: {
        type: 'invalid_tool_call',
        id: call.id,
        name: call.function.name,
        args: text,
        error: 'the arguments are not a JSON object',
      },
    };
  }
  return { valid: { type: 'tool_call', id: call.id, name: call.function.name, args: args as Record<string, unknown> } };
}
