import {
  type AssistantMessage,
  type ChatMessage,
  type ContentPart,
  LLMResponseError,
  type ReasoningItem,
  type ToolCall,
  type ToolDefinition,
} from '@ctxkit/core';
import { contentText } from '@ctxkit/core/strategy-kit';

import { makeToolCallIdsUnique, type ToolCallIdRename } from './unique-tool-call-ids';

/** Anthropic Messages content blocks ctxkit reads and writes. */
export type AnthropicContentBlock =
  | { type: 'text'; text: string }
  | { type: 'image'; source: { type: 'base64'; media_type: string; data: string } | { type: 'url'; url: string } }
  | { type: 'tool_use'; id: string; name: string; input: Record<string, unknown> }
  | {
      type: 'tool_result';
      tool_use_id: string;
      content: string | Array<{ type: 'text'; text: string }>;
      is_error?: boolean;
    }
  | { type: 'thinking'; thinking: string; signature?: string }
  | { type: 'redacted_thinking'; data: string }
  | AnthropicCompactionBlock;

/**
 * A compaction block (server-side compaction, beta): the summary of the messages it replaces, sent
 * back unchanged, first in its assistant message. `content` is `null` when the compaction failed
 * (the server treats such a block as a no-op). Fields as in `@anthropic-ai/sdk` 1.12's `BetaCompactionBlockParam`.
 */
export interface AnthropicCompactionBlock {
  type: 'compaction';
  content?: string | null;
  encrypted_content?: string | null;
  signature?: string | null;
  tool_changes?: unknown[] | null;
}

/** Block types that open an assistant message and travel as opaque provider items: compaction, thinking. */
const LEADING_OPAQUE_TYPES: ReadonlySet<string> = new Set(['compaction', 'thinking', 'redacted_thinking']);

/** True for a block ctxkit keeps as an opaque item and sends first in its assistant message. */
export function isLeadingOpaqueBlock(block: { type: string }): boolean {
  return LEADING_OPAQUE_TYPES.has(block.type);
}

/** One Anthropic Messages message. */
export interface AnthropicMessage {
  role: 'user' | 'assistant';
  content: AnthropicContentBlock[];
}

/** An Anthropic tool definition. */
export interface AnthropicTool {
  name: string;
  description?: string;
  input_schema: Record<string, unknown>;
}

/** Result of {@link toAnthropicMessages}. */
export interface AnthropicConversation {
  /** The system messages' text, joined by a blank line; `undefined` when there is none. */
  system: string | undefined;
  /**
   * The same text as {@link system}, one part per system message in order (the first as it is,
   * each later one after the blank line that joins it; blank messages left out): sent as separate
   * text blocks, the agent's system prompt stays a block of its own when a memory block after it
   * (a summary, a state) changes, so a cache breakpoint on it still matches. Empty when there is no
   * system text.
   */
  systemParts: string[];
  messages: AnthropicMessage[];
  /** Tool-call ids rewritten to be unique (results got the same new id as their call). */
  renamedToolCallIds: ToolCallIdRename[];
  /** Tool calls whose `arguments` are not a JSON object (sent as `{}`; validation reports them). */
  invalidToolArguments: Array<{ messageIndex: number; toolCallId: string }>;
  /**
   * True when the messages started with an assistant message (a window that begins after the user
   * message it answered) and {@link EARLIER_CONVERSATION_NOTE} was put before it as a user message:
   * the Messages API requires the first message to be a user message.
   */
  insertedLeadingUserMessage: boolean;
}

/** The user message put before a leading assistant message (a few tokens, within the safety margin). */
export const EARLIER_CONVERSATION_NOTE = '(Earlier messages of this conversation are not shown.)';

function imageBlock(url: string): AnthropicContentBlock {
  const match = /^data:([^;,]+);base64,(.*)$/s.exec(url);
  if (match) return { type: 'image', source: { type: 'base64', media_type: match[1]!, data: match[2]! } };
  return { type: 'image', source: { type: 'url', url } };
}

function userBlocks(content: string | ContentPart[]): AnthropicContentBlock[] {
  if (typeof content === 'string') return content === '' ? [] : [{ type: 'text', text: content }];
  return content.map((part) =>
    part.type === 'text' ? { type: 'text', text: part.text } : imageBlock(part.image_url.url),
  );
}

function parseArguments(text: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(text === '' ? '{}' : text);
    return value !== null && typeof value === 'object' && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}

function isAnthropicOpaque(item: ReasoningItem): boolean {
  return (
    item.provider === 'anthropic' && typeof item.data.type === 'string' && LEADING_OPAQUE_TYPES.has(item.data.type)
  );
}

/**
 * Canonical → Anthropic Messages:
 * - system messages go apart (`system`), joined by a blank line (and one part each in `systemParts`);
 * - an assistant message becomes its opaque Anthropic items (compaction, thinking and
 *   redacted_thinking blocks, byte for byte in the order received, first, as the API requires
 *   thinking before the `tool_use` it belongs to), a text block and one `tool_use` per call
 *   (arguments parsed to an object);
 * - tool results become `tool_result` blocks in a user message; consecutive results share one user
 *   message, and a user message right after them joins it (results first, as the API requires);
 * - consecutive messages of the same role are merged, so roles alternate (the opaque blocks of merged
 *   assistant messages first);
 * - tool-call ids reused within the conversation are made unique, consistently between the
 *   `tool_use` and its `tool_result` (pairing by position);
 * - when the first message is an assistant message (a window that starts after the user message it
 *   answered), a short user message saying that earlier messages are not shown goes before it, as the
 *   API requires a user message first; unless it opens with a compaction block, which the API
 *   requires first in the conversation.
 * The input is never mutated.
 */
export function toAnthropicMessages(messages: ReadonlyArray<Readonly<ChatMessage>>): AnthropicConversation {
  const { messages: unique, renamed } = makeToolCallIdsUnique(messages);
  const systemParts: string[] = [];
  const out: AnthropicMessage[] = [];
  const invalidToolArguments: AnthropicConversation['invalidToolArguments'] = [];

  const push = (role: 'user' | 'assistant', blocks: AnthropicContentBlock[]): void => {
    if (blocks.length === 0) return;
    const last = out[out.length - 1];
    if (!last || last.role !== role) {
      out.push({ role, content: blocks });
      return;
    }
    // Two assistant messages merged into one: their opaque blocks go first, as the API requires.
    const thinking: AnthropicContentBlock[] = blocks.filter(isLeadingOpaqueBlock);
    const leading = last.content.findIndex((block) => !isLeadingOpaqueBlock(block));
    if (thinking.length > 0 && leading !== -1) last.content.splice(leading, 0, ...thinking);
    else last.content.push(...thinking);
    last.content.push(...blocks.filter((block) => !thinking.includes(block)));
  };

  unique.forEach((message, messageIndex) => {
    switch (message.role) {
      case 'system':
        systemParts.push(contentText(message.content));
        break;
      case 'user':
        push('user', userBlocks(message.content));
        break;
      case 'tool':
        push('user', [
          {
            type: 'tool_result',
            tool_use_id: message.tool_call_id,
            content:
              typeof message.content === 'string'
                ? message.content
                : message.content.map((part) => ({ type: 'text' as const, text: part.text })),
          },
        ]);
        break;
      case 'assistant': {
        const blocks: AnthropicContentBlock[] = [];
        for (const item of message.reasoning ?? []) {
          if (isAnthropicOpaque(item)) blocks.push(structuredClone(item.data) as unknown as AnthropicContentBlock);
        }
        if (message.content !== null && message.content !== '') blocks.push({ type: 'text', text: message.content });
        for (const call of message.tool_calls ?? []) {
          const input = parseArguments(call.function.arguments);
          if (input === undefined) invalidToolArguments.push({ messageIndex, toolCallId: call.id });
          blocks.push({ type: 'tool_use', id: call.id, name: call.function.name, input: input ?? {} });
        }
        push('assistant', blocks);
        break;
      }
    }
  });
  // A compaction block opens the conversation as the API requires: no note goes before it.
  const insertedLeadingUserMessage = out[0]?.role === 'assistant' && out[0].content[0]?.type !== 'compaction';
  if (insertedLeadingUserMessage)
    out.unshift({ role: 'user', content: [{ type: 'text', text: EARLIER_CONVERSATION_NOTE }] });
  const nonBlank = systemParts.filter((part) => part.trim() !== '');
  return {
    system: systemParts.length > 0 ? systemParts.join('\n\n') : undefined,
    systemParts: nonBlank.map((part, index) => (index === 0 ? part : `\n\n${part}`)),
    messages: out,
    renamedToolCallIds: renamed,
    invalidToolArguments,
    insertedLeadingUserMessage,
  };
}

/** Canonical tool definitions → Anthropic tools (`input_schema` defaults to an empty object schema). */
export function toAnthropicTools(tools: ReadonlyArray<Readonly<ToolDefinition>>): AnthropicTool[] {
  return tools.map((tool) => {
    const out: AnthropicTool = {
      name: tool.function.name,
      input_schema: structuredClone(tool.function.parameters) ?? { type: 'object', properties: {} },
    };
    if (tool.function.description !== undefined) out.description = tool.function.description;
    return out;
  });
}

/**
 * Anthropic assistant content → a canonical `AssistantMessage`: text blocks joined into `content`
 * (`null` when there is none), `tool_use` blocks into `tool_calls` (input serialized as JSON), and
 * thinking, redacted_thinking and compaction blocks kept whole as reasoning items (provider
 * `anthropic`), in order, so that they go back unchanged with their `tool_use` on the next request.
 * @throws LLMResponseError (`CTXKIT_LLM_RESPONSE_INVALID`) for blocks without their required fields
 */
export function fromAnthropicContent(blocks: unknown, client = 'anthropic'): AssistantMessage {
  if (!Array.isArray(blocks)) throw new LLMResponseError('content is not an array of blocks', { client });
  const texts: string[] = [];
  const calls: ToolCall[] = [];
  const reasoning: ReasoningItem[] = [];
  blocks.forEach((raw: unknown, index) => {
    const block = raw as Record<string, unknown> | null;
    if (!block || typeof block.type !== 'string')
      throw new LLMResponseError(`content[${index}] has no type`, { client });
    switch (block.type) {
      case 'text':
        if (typeof block.text !== 'string')
          throw new LLMResponseError(`content[${index}] text block has no text`, { client });
        texts.push(block.text);
        break;
      case 'tool_use':
        if (typeof block.id !== 'string' || typeof block.name !== 'string') {
          throw new LLMResponseError(`content[${index}] tool_use block lacks id or name`, { client });
        }
        calls.push({
          id: block.id,
          type: 'function',
          function: { name: block.name, arguments: JSON.stringify(block.input ?? {}) },
        });
        break;
      case 'thinking':
      case 'redacted_thinking':
      case 'compaction':
        reasoning.push({ provider: 'anthropic', data: structuredClone(block) });
        break;
      default:
        // Server-side blocks ctxkit does not interpret are left out of the canonical message.
        break;
    }
  });
  const message: AssistantMessage = { role: 'assistant', content: texts.length > 0 ? texts.join('') : null };
  if (calls.length > 0) message.tool_calls = calls;
  if (reasoning.length > 0) message.reasoning = reasoning;
  return message;
}

/**
 * Anthropic conversation → canonical messages: the system text first, `tool_result` blocks as tool
 * messages (before any other content of the same user message), assistant content through
 * {@link fromAnthropicContent}.
 */
export function fromAnthropicMessages(
  system: string | undefined,
  messages: readonly AnthropicMessage[],
): ChatMessage[] {
  const out: ChatMessage[] = [];
  if (system !== undefined && system !== '') out.push({ role: 'system', content: system });
  for (const message of messages) {
    if (message.role === 'assistant') {
      out.push(fromAnthropicContent(message.content));
      continue;
    }
    const rest: ContentPart[] = [];
    for (const block of message.content) {
      if (block.type === 'tool_result') {
        const content =
          typeof block.content === 'string' ? block.content : block.content.map((part) => part.text).join('');
        out.push({ role: 'tool', tool_call_id: block.tool_use_id, content });
      } else if (block.type === 'text') {
        rest.push({ type: 'text', text: block.text });
      } else if (block.type === 'image') {
        const url =
          block.source.type === 'url'
            ? block.source.url
            : `data:${block.source.media_type};base64,${block.source.data}`;
        rest.push({ type: 'image_url', image_url: { url } });
      }
    }
    if (rest.length === 1 && rest[0]!.type === 'text') out.push({ role: 'user', content: rest[0]!.text });
    else if (rest.length > 0) out.push({ role: 'user', content: rest });
  }
  return out;
}
