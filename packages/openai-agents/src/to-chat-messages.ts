import type { AssistantMessage, ReasoningItem, ToolCall } from '@ctxkit/core';
import type { AgentInputItem } from '@openai/agents';

import {
  OPENAI_AGENTS_CARRIED_PROVIDER,
  OPENAI_REASONING_PROVIDER,
  type OpenAIAgentsChatMessage,
} from './agents-origin';
import { AgentInputItemError } from './errors/agent-input-item-error';
import { assistantText, toolOutputContent, userContent } from './item-content';
import { asFunctionCall, asFunctionCallResult, itemKind, type MessageItem } from './item-kinds';

/** Converted messages and how many items each one was made of. */
export interface ConvertedItems {
  messages: OpenAIAgentsChatMessage[];
  /** `spans[i]` items made `messages[i]`. */
  spans: number[];
}

/** An assistant step being collected: reasoning, at most one message, function calls, carried items. */
interface AssistantGroup {
  items: AgentInputItem[];
  message: MessageItem | undefined;
  calls: ToolCall[];
  reasoning: ReasoningItem[];
}

function assistantMessage(group: AssistantGroup): OpenAIAgentsChatMessage {
  const text = group.message ? assistantText(group.message.content) : undefined;
  const message: AssistantMessage & OpenAIAgentsChatMessage = {
    role: 'assistant',
    content: text ?? (group.calls.length > 0 ? null : ''),
  };
  if (group.calls.length > 0) message.tool_calls = group.calls;
  if (group.reasoning.length > 0) message.reasoning = group.reasoning;
  message.openaiAgents = { items: group.items };
  return message;
}

/**
 * Converts Agents SDK items to ctxkit messages, `offset` being the position of `items[0]` in the
 * caller's list (for error messages).
 * @throws AgentInputItemError (`CTXKIT_HISTORY_INVALID`) for an item that is not a valid input item
 */
export function convertItems(items: readonly AgentInputItem[], offset = 0): ConvertedItems {
  const messages: OpenAIAgentsChatMessage[] = [];
  const spans: number[] = [];
  let group: AssistantGroup | undefined;
  const flush = (): void => {
    if (!group) return;
    messages.push(assistantMessage(group));
    spans.push(group.items.length);
    group = undefined;
  };
  const open = (): AssistantGroup => (group ??= { items: [], message: undefined, calls: [], reasoning: [] });
  items.forEach((item, position) => {
    const kind = itemKind(item);
    if (typeof kind === 'object') throw new AgentInputItemError(offset + position, kind.problem);
    switch (kind) {
      case 'user':
      case 'system': {
        flush();
        const source = item as MessageItem;
        const content =
          kind === 'user'
            ? userContent(source.content)
            : typeof source.content === 'string'
              ? source.content
              : assistantText(source.content);
        messages.push({ role: kind, content, openaiAgents: { items: [item] } } as OpenAIAgentsChatMessage);
        spans.push(1);
        return;
      }
      case 'assistant': {
        if (group && (group.message !== undefined || group.calls.length > 0)) flush();
        const current = open();
        current.message = item as MessageItem;
        current.items.push(item);
        return;
      }
      case 'function_call': {
        const call = asFunctionCall(item);
        const current = open();
        current.calls.push({
          id: call.callId,
          type: 'function',
          function: { name: call.name, arguments: call.arguments },
        });
        current.items.push(item);
        return;
      }
      case 'function_call_result': {
        flush();
        const result = asFunctionCallResult(item);
        messages.push({
          role: 'tool',
          tool_call_id: result.callId,
          content: toolOutputContent(result.output),
          openaiAgents: { items: [item] },
        });
        spans.push(1);
        return;
      }
      default: {
        const current = open();
        // Reasoning and compaction items are OpenAI's own (counted by what goes back: encrypted content); others are
        // carried.
        const provider =
          kind === 'reasoning' || kind === 'compaction' ? OPENAI_REASONING_PROVIDER : OPENAI_AGENTS_CARRIED_PROVIDER;
        current.reasoning.push({ provider, data: item as unknown as Record<string, unknown> });
        current.items.push(item);
      }
    }
  });
  flush();
  return { messages, spans };
}

/**
 * Converts Agents SDK input items (a session's history, a run's input) to ctxkit messages:
 * - user, system and assistant messages to messages of the same role: input text and image URLs
 *   in their slots, output text and refusals as the assistant's text; a part ctxkit has no slot
 *   for (a file, audio, an image given by id) as a marker such as `[file: report.pdf]`;
 * - the reasoning, compaction, assistant message and `function_call` items of one model step to one
 *   assistant message with `tool_calls` (the reasoning and compaction items in its `reasoning`,
 *   provider `openai`, unchanged);
 * - each `function_call_result` to a `role: 'tool'` message (its output as text);
 * - items ctxkit has no slot for (hosted tool calls, computer, shell and apply-patch items,
 *   unknown items) carried in the `reasoning` of the assistant step they belong to
 *   (provider `openai-agents`), never counted.
 * Each message keeps its items under `openaiAgents`, so that {@link toAgentInputItems} gives them
 * back identical.
 * @throws AgentInputItemError (`CTXKIT_HISTORY_INVALID`) for an item that is not a valid input item
 */
export function toChatMessages(items: readonly AgentInputItem[]): OpenAIAgentsChatMessage[] {
  if (!Array.isArray(items)) throw new AgentInputItemError(-1, 'the items are not an array');
  return convertItems(items).messages;
}
