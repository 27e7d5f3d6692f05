import { isDeepStrictEqual } from 'node:util';

import { type ChatMessage, type ContentPart, type ReadonlyChatMessage, type TextContentPart } from '@ctxkit/core';
import { contentText } from '@ctxkit/core/strategy-kit';
import type { AgentInputItem, FunctionCallItem, FunctionCallResultItem } from '@openai/agents';

import {
  OPENAI_AGENTS_CARRIED_PROVIDER,
  OPENAI_REASONING_PROVIDER,
  type OpenAIAgentsChatMessage,
} from './agents-origin';
import { ChatMessageItemError } from './errors/chat-message-item-error';
import { convertItems } from './to-chat-messages';

type Item = Record<string, unknown>;

const COMPARED = ['role', 'content', 'tool_calls', 'reasoning', 'tool_call_id'] as const;

function comparable(message: ReadonlyChatMessage): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const key of COMPARED) {
    const value = (message as Record<string, unknown>)[key];
    if (value !== undefined) out[key] = value;
  }
  return out;
}

/** The origin's items when the message still reads as they convert, else `undefined`. */
function unchangedItems(message: OpenAIAgentsChatMessage): AgentInputItem[] | undefined {
  const items = message.openaiAgents?.items;
  if (!Array.isArray(items) || items.length === 0) return undefined;
  let canonical: OpenAIAgentsChatMessage[];
  try {
    canonical = convertItems(items).messages;
  } catch {
    return undefined;
  }
  if (canonical.length !== 1 || !isDeepStrictEqual(comparable(canonical[0]!), comparable(message))) return undefined;
  return items;
}

/** The origin item of `message` that satisfies `match`, as a base to rebuild from (its content replaced). */
function originItem(message: OpenAIAgentsChatMessage, match: (item: Item) => boolean): Item | undefined {
  const items = message.openaiAgents?.items;
  return Array.isArray(items) ? (items as unknown as Item[]).find(match) : undefined;
}

function userItemContent(content: ChatMessage['content']): string | Item[] {
  if (typeof content === 'string' || content === null) return content ?? '';
  return (content as ContentPart[]).map((part): Item => {
    if (part.type === 'image_url') {
      const image: Item = { type: 'input_image', image: part.image_url.url };
      if (part.image_url.detail) image.detail = part.image_url.detail;
      return image;
    }
    return { type: 'input_text', text: part.text };
  });
}

function toolOutput(content: string | TextContentPart[], base: Item | undefined): FunctionCallResultItem['output'] {
  const previous = base?.output;
  if (Array.isArray(content)) {
    if (Array.isArray(previous)) return content.map((part) => ({ type: 'input_text' as const, text: part.text }));
    return contentText(content);
  }
  if (previous !== null && typeof previous === 'object' && !Array.isArray(previous))
    return { type: 'text', text: content };
  return content;
}

function without(item: Item | undefined, ...keys: string[]): Item {
  const copy: Item = { ...(item ?? {}) };
  for (const key of keys) delete copy[key];
  return copy;
}

/**
 * Converts ctxkit messages back to Agents SDK input items. A message that a strategy passed
 * through unchanged (the same role, content, tool calls and reasoning as its `openaiAgents`
 * origin) becomes exactly its original items, the same objects. Any other message is built from
 * its ctxkit fields, keeping the ids, statuses and `providerData` of its origin's items where they
 * still apply: a system message (the dynamic context, a summary with `memoryRole: 'system'`) becomes a
 * system message item, a user message (a summary by default) a user message item (text and image URL parts), an
 * assistant message its reasoning and carried items, an assistant message item for its text and one `function_call` per
 * tool call, a tool message a `function_call_result` (named after its call earlier in the list).
 * @throws ChatMessageItemError (`CTXKIT_HISTORY_INVALID`) for an unknown role, or a tool message without origin whose
 *   call is not earlier in the list
 */
export function toAgentInputItems(messages: readonly ReadonlyChatMessage[]): AgentInputItem[] {
  const out: AgentInputItem[] = [];
  const toolNames = new Map<string, string>();
  messages.forEach((readonlyMessage, index) => {
    const message = readonlyMessage as OpenAIAgentsChatMessage;
    if (message.role === 'assistant')
      for (const call of message.tool_calls ?? []) toolNames.set(call.id, call.function.name);
    const unchanged = unchangedItems(message);
    if (unchanged) {
      out.push(...unchanged);
      return;
    }
    switch (message.role) {
      case 'system': {
        const base = without(
          originItem(message, (item) => item.role === 'system'),
          'content',
        );
        out.push({ ...base, role: 'system', content: contentText(message.content) } as AgentInputItem);
        return;
      }
      case 'user': {
        const base = without(
          originItem(message, (item) => item.role === 'user'),
          'content',
        );
        out.push({ ...base, role: 'user', content: userItemContent(message.content) } as AgentInputItem);
        return;
      }
      case 'assistant': {
        for (const reasoning of message.reasoning ?? []) {
          if (reasoning.provider === OPENAI_REASONING_PROVIDER || reasoning.provider === OPENAI_AGENTS_CARRIED_PROVIDER)
            out.push(reasoning.data as unknown as AgentInputItem);
        }
        if (typeof message.content === 'string' && message.content !== '') {
          const base = without(
            originItem(message, (item) => item.role === 'assistant'),
            'content',
          );
          out.push({
            type: 'message',
            status: 'completed',
            ...base,
            role: 'assistant',
            content: [{ type: 'output_text', text: message.content }],
          } as AgentInputItem);
        }
        for (const call of message.tool_calls ?? []) {
          const base = originItem(message, (item) => item.type === 'function_call' && item.callId === call.id);
          const item: Item = {
            ...without(base, 'callId', 'name', 'arguments'),
            type: 'function_call',
            callId: call.id,
            name: call.function.name,
            arguments: call.function.arguments,
          };
          out.push(item as unknown as FunctionCallItem);
        }
        return;
      }
      case 'tool': {
        const base = originItem(message, (item) => item.type === 'function_call_result');
        const name = toolNames.get(message.tool_call_id) ?? (typeof base?.name === 'string' ? base.name : undefined);
        if (name === undefined) {
          throw new ChatMessageItemError(
            index,
            `the tool message for call ${JSON.stringify(message.tool_call_id)} has no assistant tool call before it`,
            'Put the assistant message whose tool_calls holds this id before its tool messages (a ' +
              'function_call_result needs the tool name), as every strategy payload does.',
          );
        }
        const item: Item = {
          status: 'completed',
          ...without(base, 'output', 'callId', 'name'),
          type: 'function_call_result',
          callId: message.tool_call_id,
          name,
          output: toolOutput(message.content, base),
        };
        out.push(item as unknown as FunctionCallResultItem);
        return;
      }
      default:
        throw new ChatMessageItemError(
          index,
          `unknown role ${JSON.stringify((message as { role?: unknown }).role)}`,
          'Pass messages of role system, user, assistant or tool.',
        );
    }
  });
  return out;
}
