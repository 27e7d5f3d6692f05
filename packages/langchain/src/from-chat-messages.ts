import type { ChatMessage } from '@ctxkit/core';
import {
  AIMessage,
  AIMessageChunk,
  type BaseMessage,
  HumanMessage,
  HumanMessageChunk,
  SystemMessage,
  SystemMessageChunk,
  ToolMessage,
  ToolMessageChunk,
} from '@langchain/core/messages';

import { reasoningBlocksOf, toLangChainContent } from './content-blocks';
import {
  type LangChainChatMessage,
  type LangChainMessageFields,
  type LangChainMessageType,
  type LangChainOrigin,
  originalMessage,
} from './langchain-origin';
import { sameData } from './same-data';
import { chatFieldsOf } from './to-chat-messages';
import { type LangChainInvalidToolCall, type LangChainToolCall, toLangChainToolCall } from './tool-call-conversion';

const TYPE_OF_ROLE: Record<ChatMessage['role'], LangChainMessageType> = {
  system: 'system',
  user: 'human',
  assistant: 'ai',
  tool: 'tool',
};

/**
 * The ctxkit fields of a message that strategies may change; a carried origin is used whole only while they are as
 * converted.
 */
const VIEW_KEYS = ['role', 'content', 'name', 'tool_calls', 'tool_call_id', 'reasoning', 'output_ref'] as const;

function view(message: Readonly<ChatMessage>): Record<string, unknown> {
  const source = message as unknown as Record<string, unknown>;
  const picked: Record<string, unknown> = {};
  for (const key of VIEW_KEYS) if (source[key] !== undefined) picked[key] = source[key];
  return picked;
}

function isOrigin(value: unknown, type: LangChainMessageType): value is LangChainOrigin {
  if (typeof value !== 'object' || value === null) return false;
  const origin = value as Partial<LangChainOrigin>;
  return origin.type === type && typeof origin.fields === 'object' && origin.fields !== null;
}

/** True when the message still shows what its origin converts to (no strategy changed it). */
function unchanged(message: Readonly<ChatMessage>, origin: LangChainOrigin, index: number): boolean {
  try {
    return sameData(view(chatFieldsOf(origin.type, origin.fields, index)), view(message));
  } catch {
    return false;
  }
}

/** The LangChain fields of what ctxkit holds: content, name, tool calls, tool_call_id, output_ref. */
function fieldsOfChat(message: Readonly<ChatMessage>, toolNames: ReadonlyMap<string, string>): LangChainMessageFields {
  const fields: LangChainMessageFields = { content: toLangChainContent(message.content) };
  if (message.role !== 'tool' && message.name !== undefined) fields.name = message.name;
  if (message.role === 'assistant') {
    const reasoning = reasoningBlocksOf(message.reasoning);
    if (reasoning.length > 0) {
      const text = message.content ?? '';
      fields.content = [...reasoning, ...(text === '' ? [] : [{ type: 'text', text }])];
    }
    const valid: LangChainToolCall[] = [];
    const invalid: LangChainInvalidToolCall[] = [];
    for (const call of message.tool_calls ?? []) {
      const converted = toLangChainToolCall(call);
      if ('valid' in converted) valid.push(converted.valid);
      else invalid.push(converted.invalid);
    }
    fields.tool_calls = valid;
    if (invalid.length > 0) fields.invalid_tool_calls = invalid;
  }
  if (message.role === 'tool') {
    fields.tool_call_id = message.tool_call_id;
    const name = toolNames.get(message.tool_call_id);
    if (name !== undefined) fields.name = name;
    if (message.output_ref) fields.metadata = { output_ref: { ...message.output_ref } };
  }
  return fields;
}

/** What a changed message keeps of its origin: everything ctxkit does not hold. */
function keptFromOrigin(origin: LangChainOrigin, fields: LangChainMessageFields): LangChainMessageFields {
  const kept: LangChainMessageFields = { ...origin.fields, ...fields };
  if (fields.name === undefined && origin.fields.name !== undefined) kept.name = origin.fields.name;
  if (fields.invalid_tool_calls === undefined && origin.fields.invalid_tool_calls !== undefined)
    kept.invalid_tool_calls = origin.fields.invalid_tool_calls;
  if (origin.fields.metadata !== undefined || fields.metadata !== undefined) {
    const metadata: Record<string, unknown> = { ...origin.fields.metadata, ...fields.metadata };
    if (fields.metadata?.output_ref === undefined) delete metadata.output_ref;
    kept.metadata = metadata;
  }
  delete kept.tool_call_chunks;
  return kept;
}

function copied<T>(value: T): T {
  return (Array.isArray(value) ? [...value] : value) as T;
}

/** A new LangChain message of `type` from its fields (arrays copied: constructors may append to them). */
function build(
  type: LangChainMessageType,
  chunk: boolean,
  fields: LangChainMessageFields,
  artifact: unknown,
): BaseMessage {
  const init: Record<string, unknown> = { ...fields, content: copied(fields.content) };
  for (const key of ['tool_calls', 'invalid_tool_calls', 'tool_call_chunks'] as const)
    if (fields[key] !== undefined) init[key] = copied(fields[key]);
  if (artifact !== undefined) init.artifact = artifact;
  type Init = never;
  switch (type) {
    case 'system':
      return chunk ? new SystemMessageChunk(init as Init) : new SystemMessage(init as Init);
    case 'human':
      return chunk ? new HumanMessageChunk(init as Init) : new HumanMessage(init as Init);
    case 'ai':
      return chunk ? new AIMessageChunk(init as Init) : new AIMessage(init as Init);
    case 'tool':
      return chunk ? new ToolMessageChunk(init as Init) : new ToolMessage(init as Init);
  }
}

function artifactOf(origin: LangChainOrigin): unknown {
  return (originalMessage(origin) as { artifact?: unknown } | undefined)?.artifact;
}

/**
 * Converts one ctxkit message to a LangChain message. A message converted by {@link toChatMessage}
 * that no strategy changed comes back identical (the original object itself while the ctxkit
 * message was passed through, else a new one with every field); a changed one (a truncated
 * output, a placeholder, a one-line summary) takes what ctxkit holds (content, name, tool calls)
 * and keeps the rest of its original (id, metadata, status, ...). Others become `SystemMessage`,
 * `HumanMessage` (text and `image_url` blocks), `AIMessage` (`arguments` parsed into `args`; not a
 * JSON object → `invalid_tool_calls`; `null` content → `''`) or `ToolMessage` (named after its call
 * when `toolNames` knows the id; `output_ref` in `metadata`).
 * @param toolNames tool names by call id, for tool messages without an origin
 */
export function fromChatMessage(
  message: Readonly<ChatMessage>,
  index = 0,
  toolNames: ReadonlyMap<string, string> = new Map(),
): BaseMessage {
  const type = TYPE_OF_ROLE[message.role];
  const origin = (message as Readonly<LangChainChatMessage>).langchain;
  if (isOrigin(origin, type)) {
    if (unchanged(message, origin, index))
      return originalMessage(origin) ?? build(type, origin.chunk, origin.fields, undefined);
    return build(type, false, keptFromOrigin(origin, fieldsOfChat(message, toolNames)), artifactOf(origin));
  }
  return build(type, false, fieldsOfChat(message, toolNames), undefined);
}

/**
 * Converts ctxkit messages to LangChain messages, one for one, in order (see {@link fromChatMessage});
 * a tool message is named after the call it answers in the assistant message before it.
 */
export function fromChatMessages(messages: ReadonlyArray<Readonly<ChatMessage>>): BaseMessage[] {
  let toolNames = new Map<string, string>();
  return messages.map((message, index) => {
    if (message.role === 'assistant')
      toolNames = new Map((message.tool_calls ?? []).map((call) => [call.id, call.function.name]));
    return fromChatMessage(message, index, toolNames);
  });
}
