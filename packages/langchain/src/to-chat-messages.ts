import type { AssistantMessage, ToolOutputRef } from '@ctxkit/core';
import { BaseMessage } from '@langchain/core/messages';

import { joinedTextOf, reasoningOf, textContentOf, userContentOf } from './content-blocks';
import { LangChainMessageError } from './langchain-errors';
import {
  captureOrigin,
  type LangChainChatMessage,
  type LangChainMessageFields,
  type LangChainMessageType,
  type LangChainOrigin,
} from './langchain-origin';
import { type LangChainToolCall, toCtxkitToolCall } from './tool-call-conversion';

const TYPES = new Set<string>(['system', 'human', 'ai', 'tool']);

function isToolOutputRef(value: unknown): value is ToolOutputRef {
  if (typeof value !== 'object' || value === null) return false;
  const ref = value as Record<string, unknown>;
  return (
    typeof ref.id === 'string' &&
    (ref.byte_size === undefined || typeof ref.byte_size === 'number') &&
    (ref.line_count === undefined || typeof ref.line_count === 'number')
  );
}

/**
 * The ctxkit fields of a LangChain message (what strategies see), from its type and fields.
 * @throws LangChainMessageError (`CTXKIT_HISTORY_INVALID`) for a tool call without an id or with args that are not JSON
 */
export function chatFieldsOf(
  type: LangChainMessageType,
  fields: LangChainMessageFields,
  index: number,
): LangChainChatMessage {
  const name = typeof fields.name === 'string' ? { name: fields.name } : {};
  switch (type) {
    case 'system':
      return { role: 'system', content: textContentOf(fields.content), ...name };
    case 'human':
      return { role: 'user', content: userContentOf(fields.content), ...name };
    case 'tool': {
      const ref = fields.metadata?.output_ref;
      return {
        role: 'tool',
        tool_call_id: fields.tool_call_id ?? '',
        content: textContentOf(fields.content),
        ...(isToolOutputRef(ref) ? { output_ref: { ...ref } } : {}),
      };
    }
    case 'ai': {
      const calls = ((fields.tool_calls ?? []) as LangChainToolCall[]).map((call) => toCtxkitToolCall(call, index));
      const text = joinedTextOf(fields.content);
      const message: AssistantMessage = {
        role: 'assistant',
        content: text === '' && calls.length > 0 ? null : text,
        ...name,
      };
      if (calls.length > 0) message.tool_calls = calls;
      const reasoning = reasoningOf(fields.content, fields.response_metadata?.model_provider);
      if (reasoning.length > 0) message.reasoning = reasoning;
      return message;
    }
  }
}

/** The LangChain message type of `message` when ctxkit has an equivalent. */
function convertibleType(message: unknown, index: number): LangChainMessageType {
  if (!BaseMessage.isInstance(message)) {
    throw new LangChainMessageError(
      index,
      'not a LangChain message',
      'Pass BaseMessage instances (SystemMessage, HumanMessage, AIMessage, ToolMessage); coerce plain objects with ' +
        'coerceMessageLikeToMessage from @langchain/core/messages first.',
    );
  }
  const type = message.type as string;
  if (!TYPES.has(type)) {
    throw new LangChainMessageError(
      index,
      `a ${type} message has no ctxkit equivalent`,
      'Use SystemMessage, HumanMessage, AIMessage and ToolMessage only (turn a FunctionMessage into a ToolMessage, ' +
        'a ChatMessage with a custom role into one of these, and apply RemoveMessage before the conversion).',
    );
  }
  return type as LangChainMessageType;
}

/**
 * Converts one LangChain message to ctxkit's message shape (OpenAI chat completions):
 * `SystemMessage` → `system`, `HumanMessage` → `user` (text and image parts), `AIMessage` →
 * `assistant` (text, `tool_calls` with `args` as JSON `arguments`, reasoning and thinking blocks in
 * `reasoning`), `ToolMessage` → `tool` (`tool_call_id`, text parts). Everything ctxkit has no slot
 * for (other blocks, ids, metadata, usage, status, `invalid_tool_calls`) is carried under the
 * `langchain` key, so that {@link fromChatMessage} gives the same message back.
 * @param index the message's position, for error messages
 * @throws LangChainMessageError (`CTXKIT_HISTORY_INVALID`) for another message type, a tool call without an id, args
 *   that are not JSON
 */
export function toChatMessage(message: BaseMessage, index = 0): LangChainChatMessage {
  const type = convertibleType(message, index);
  const origin: LangChainOrigin = captureOrigin(message, type);
  const converted = chatFieldsOf(type, origin.fields, index);
  converted.langchain = origin;
  return converted;
}

/**
 * Converts LangChain messages to ctxkit messages, one for one, in order (see {@link toChatMessage}).
 * @throws LangChainMessageError (`CTXKIT_HISTORY_INVALID`) naming the first message that cannot be converted
 */
export function toChatMessages(messages: ReadonlyArray<BaseMessage>): LangChainChatMessage[] {
  return messages.map((message, index) => toChatMessage(message, index));
}
