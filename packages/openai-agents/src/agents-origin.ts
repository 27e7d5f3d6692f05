import type { ChatMessage } from '@ctxkit/core';
import type { AgentInputItem } from '@openai/agents';

/**
 * What a ctxkit message carries of the Agents SDK items it was converted from, under its
 * `openaiAgents` key: the items themselves, in their order. While a strategy passes the message
 * (or a copy of it) through with the same role, content, tool calls and reasoning, the message
 * converts back to exactly these items (the same objects); a changed message is rebuilt from its
 * ctxkit fields and keeps the ids, statuses and `providerData` of these items.
 */
export interface OpenAIAgentsOrigin {
  items: AgentInputItem[];
}

/** A ctxkit message converted from Agents SDK items: a `ChatMessage` plus its origin. */
export type OpenAIAgentsChatMessage = ChatMessage & { openaiAgents?: OpenAIAgentsOrigin };

/** `ReasoningItem.provider` of an OpenAI `reasoning` item converted from the Agents SDK. */
export const OPENAI_REASONING_PROVIDER = 'openai';

/**
 * `ReasoningItem.provider` of an Agents SDK item that ctxkit has no slot for (hosted tool calls,
 * computer, shell and apply-patch calls and their results, compaction and unknown items): carried
 * with the assistant message it came with, as it was, and never counted.
 */
export const OPENAI_AGENTS_CARRIED_PROVIDER = 'openai-agents';
