import {
  type AssistantMessage,
  type ChatMessage,
  LLMResponseError,
  type ReasoningItem,
  type ToolCall,
  type ToolDefinition,
} from '@ctxkit/core';
import { contentText } from '@ctxkit/core/strategy-kit';

import { makeToolCallIdsUnique } from './unique-tool-call-ids';

/** An OpenAI Responses input item ctxkit writes (messages, function calls and outputs, reasoning). */
export type ResponsesInputItem =
  | {
      type: 'message';
      role: 'system' | 'developer' | 'user' | 'assistant';
      content:
        | string
        | Array<
            | { type: 'input_text'; text: string }
            | { type: 'input_image'; image_url: string; detail?: 'auto' | 'low' | 'high' }
            | { type: 'output_text'; text: string }
          >;
    }
  | { type: 'function_call'; call_id: string; name: string; arguments: string; id?: string }
  | { type: 'function_call_output'; call_id: string; output: string }
  | { type: 'reasoning'; [field: string]: unknown }
  | { type: 'compaction'; encrypted_content: string; id?: string | null; [field: string]: unknown };

/** A Responses function tool. */
export interface ResponsesTool {
  type: 'function';
  name: string;
  description?: string;
  parameters?: Record<string, unknown>;
  strict?: boolean;
}

/** True for an opaque Responses item ctxkit keeps on its assistant message: a reasoning item or a compaction item. */
function isOpenAIOpaque(item: ReasoningItem): boolean {
  return item.provider === 'openai' && (item.data.type === 'reasoning' || item.data.type === 'compaction');
}

/** Converts one canonical message (ids already unique) to its Responses input items. */
function messageItems(message: Readonly<ChatMessage>): ResponsesInputItem[] {
  switch (message.role) {
    case 'system':
      return [{ type: 'message', role: 'system', content: contentText(message.content) }];
    case 'user':
      if (typeof message.content === 'string') return [{ type: 'message', role: 'user', content: message.content }];
      return [
        {
          type: 'message',
          role: 'user',
          content: message.content.map((part) =>
            part.type === 'text'
              ? { type: 'input_text' as const, text: part.text }
              : {
                  type: 'input_image' as const,
                  image_url: part.image_url.url,
                  ...(part.image_url.detail ? { detail: part.image_url.detail } : {}),
                },
          ),
        },
      ];
    case 'tool':
      return [{ type: 'function_call_output', call_id: message.tool_call_id, output: contentText(message.content) }];
    case 'assistant': {
      const items: ResponsesInputItem[] = [];
      // Opaque items first, in the order received: a function_call must be preceded by the reasoning item it came with.
      for (const item of message.reasoning ?? []) {
        if (isOpenAIOpaque(item)) items.push(structuredClone(item.data) as ResponsesInputItem);
      }
      if (message.content !== null && message.content !== '') {
        items.push({ type: 'message', role: 'assistant', content: [{ type: 'output_text', text: message.content }] });
      }
      for (const call of message.tool_calls ?? []) {
        items.push({
          type: 'function_call',
          call_id: call.id,
          name: call.function.name,
          arguments: call.function.arguments,
        });
      }
      return items;
    }
  }
}

/**
 * Canonical → OpenAI Responses input items: system and user messages become `message` items,
 * an assistant message becomes its opaque items (reasoning and compaction items, byte for byte in the
 * order received, kept before the `function_call` they belong to), an assistant `message` item and one `function_call`
 * per call; tool results become `function_call_output` items. Reused call ids are made unique, consistently between
 * call and output. The input is never mutated.
 */
export function toResponsesInput(messages: ReadonlyArray<Readonly<ChatMessage>>): ResponsesInputItem[] {
  const { messages: unique } = makeToolCallIdsUnique(messages);
  return unique.flatMap(messageItems);
}

/** Canonical tool definitions → Responses function tools. */
export function toResponsesTools(tools: ReadonlyArray<Readonly<ToolDefinition>>): ResponsesTool[] {
  return tools.map((tool) => {
    const out: ResponsesTool = { type: 'function', name: tool.function.name };
    if (tool.function.description !== undefined) out.description = tool.function.description;
    if (tool.function.parameters !== undefined) out.parameters = structuredClone(tool.function.parameters);
    if (tool.function.strict !== undefined) out.strict = tool.function.strict;
    return out;
  });
}

/**
 * Responses output items → one canonical `AssistantMessage`: `output_text` parts joined into
 * `content`, `function_call` items into `tool_calls` (`call_id` becomes the call id), `reasoning`
 * and `compaction` items kept verbatim, in order, as reasoning items of provider `openai` so that
 * they go back, in place, on the next request.
 * @throws LLMResponseError (`CTXKIT_LLM_RESPONSE_INVALID`) when `output` is not an array or a
 * function call lacks its fields
 */
export function fromResponsesOutput(output: unknown, client = 'openai-responses'): AssistantMessage {
  if (!Array.isArray(output)) throw new LLMResponseError('output is not an array of items', { client });
  const texts: string[] = [];
  const calls: ToolCall[] = [];
  const reasoning: ReasoningItem[] = [];
  output.forEach((raw: unknown, index) => {
    const item = raw as Record<string, unknown> | null;
    if (!item || typeof item.type !== 'string') throw new LLMResponseError(`output[${index}] has no type`, { client });
    if (item.type === 'reasoning' || item.type === 'compaction') {
      reasoning.push({ provider: 'openai', data: structuredClone(item) });
    } else if (item.type === 'function_call') {
      if (typeof item.call_id !== 'string' || typeof item.name !== 'string') {
        throw new LLMResponseError(`output[${index}] function_call lacks call_id or name`, { client });
      }
      calls.push({
        id: item.call_id,
        type: 'function',
        function: { name: item.name, arguments: typeof item.arguments === 'string' ? item.arguments : '{}' },
      });
    } else if (item.type === 'message' && Array.isArray(item.content)) {
      for (const part of item.content as Array<Record<string, unknown>>) {
        if (part && part.type === 'output_text' && typeof part.text === 'string') texts.push(part.text);
      }
    }
  });
  const message: AssistantMessage = { role: 'assistant', content: texts.length > 0 ? texts.join('') : null };
  if (calls.length > 0) message.tool_calls = calls;
  if (reasoning.length > 0) message.reasoning = reasoning;
  return message;
}
