import type { ChatMessage } from '@ctxkit/core';
import { type BaseMessage, BaseMessageChunk } from '@langchain/core/messages';

/** The LangChain message types that have a ctxkit equivalent. */
export type LangChainMessageType = 'system' | 'human' | 'ai' | 'tool';

/**
 * The fields of a LangChain message, as data: what its constructor takes back. `artifact` (never sent
 * to a model, possibly not copyable) is not among them; see {@link LangChainOrigin}.
 */
export interface LangChainMessageFields {
  content: unknown;
  id?: string;
  name?: string;
  additional_kwargs?: Record<string, unknown>;
  response_metadata?: Record<string, unknown>;
  tool_calls?: unknown[];
  invalid_tool_calls?: unknown[];
  tool_call_chunks?: unknown[];
  usage_metadata?: unknown;
  tool_call_id?: string;
  status?: string;
  metadata?: Record<string, unknown>;
}

/**
 * What a ctxkit message carries of the LangChain message it was converted from, under its
 * `langchain` key: the message type and every field, so that it converts back identical, also
 * after a strategy copied it. While a strategy passes the ctxkit message (or a spread copy of it)
 * through unchanged, the original LangChain message object itself is given back, `artifact` included.
 */
export interface LangChainOrigin {
  type: LangChainMessageType;
  /** The original was a chunk (`AIMessageChunk`, ...). */
  chunk: boolean;
  fields: LangChainMessageFields;
}

/** A ctxkit message converted from a LangChain message: a `ChatMessage` plus its origin. */
export type LangChainChatMessage = ChatMessage & { langchain?: LangChainOrigin };

/** The original message of each origin, while the origin object itself travels through a strategy. */
const originals = new WeakMap<LangChainOrigin, BaseMessage>();

/** The origin to attach to the ctxkit message converted from `message`. */
export function captureOrigin(message: BaseMessage, type: LangChainMessageType): LangChainOrigin {
  const source = message as unknown as Record<string, unknown>;
  const fields: LangChainMessageFields = { content: message.content };
  if (message.id !== undefined) fields.id = message.id;
  if (message.name !== undefined) fields.name = message.name;
  if (message.additional_kwargs !== undefined)
    fields.additional_kwargs = message.additional_kwargs as Record<string, unknown>;
  if (message.response_metadata !== undefined)
    fields.response_metadata = message.response_metadata as Record<string, unknown>;
  const chunk = BaseMessageChunk.isInstance(message);
  if (type === 'ai') {
    if (Array.isArray(source.tool_calls)) fields.tool_calls = source.tool_calls;
    if (Array.isArray(source.invalid_tool_calls)) fields.invalid_tool_calls = source.invalid_tool_calls;
    if (chunk && Array.isArray(source.tool_call_chunks)) fields.tool_call_chunks = source.tool_call_chunks;
    if (source.usage_metadata !== undefined) fields.usage_metadata = source.usage_metadata;
  }
  if (type === 'tool') {
    fields.tool_call_id = source.tool_call_id as string;
    if (typeof source.status === 'string') fields.status = source.status;
    if (source.metadata !== undefined) fields.metadata = source.metadata as Record<string, unknown>;
  }
  const origin: LangChainOrigin = { type, chunk, fields };
  originals.set(origin, message);
  return origin;
}

/** The original LangChain message of an origin object that was not copied, else `undefined`. */
export function originalMessage(origin: LangChainOrigin): BaseMessage | undefined {
  return originals.get(origin);
}
