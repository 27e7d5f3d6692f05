import {
  type ChatMessage,
  type LLMCompletionRequest,
  providerCompactionItem,
  providerCompactionText,
  type ToolDefinition,
} from '@ctxkit/core';
import { completeBeforeDeadline } from '@ctxkit/core/strategy-kit';

import {
  type CompactMessagesOptions,
  type CompactMessagesResult,
  nonEmptyDirectives,
  refuseContentless,
  stripTrailingToolCalls,
  systemMessages,
  unusableReply,
} from './compact-messages';
import type { CompactionConfig } from './compaction-config';

/** Inputs of {@link compactWithProvider}: the latest payload's tools too, which the provider and its cache read. */
export interface ProviderCompactionOptions extends Omit<CompactMessagesOptions, 'stripTrailingToolCalls'> {
  tools: ReadonlyArray<ToolDefinition>;
}

/**
 * Instructions for the provider's summary: `undefined` (the provider's own prompt) unless directives or a
 * `compact` focus ask for more. Anthropic replaces its prompt with them; OpenAI takes none.
 */
export function providerCompactionInstructions(
  config: Pick<CompactionConfig, 'summaryDirectives' | 'retainDirectives'>,
  focus?: string,
): string | undefined {
  const asks = nonEmptyDirectives([...config.retainDirectives, ...config.summaryDirectives]);
  if (focus && focus.trim() !== '') asks.push(`Focus on: ${focus.trim()}`);
  if (asks.length === 0) return undefined;
  return [
    "Summarize the conversation so that it can go on from the summary alone: the task and its goals, the user's " +
      'instructions and constraints, identifiers, file paths, numbers and decisions exactly as written, what was ' +
      'done and what is left.',
    'Also:',
    ...asks.map((ask) => `- ${ask}`),
  ].join('\n');
}

/**
 * The provider compaction request: system prompt, tools and `cacheKey` as a turn carries them, so that it
 * starts with the bytes of the turns, and `providerCompaction` instead of an appended instruction.
 */
export function buildProviderCompactionRequest(
  messages: ReadonlyArray<ChatMessage>,
  options: Omit<ProviderCompactionOptions, 'llm'>,
): LLMCompletionRequest {
  const instructions = providerCompactionInstructions(options.config, options.focus);
  return {
    model: options.config.model ?? options.callerModel,
    messages: [...systemMessages(options.systemPrompt), ...stripTrailingToolCalls(messages)],
    tools: options.tools.length > 0 ? [...options.tools] : null,
    maxOutputTokens: options.config.maxSummaryTokens,
    providerCompaction: instructions !== undefined ? { instructions } : {},
    ...(options.cacheKey !== undefined ? { cacheKey: options.cacheKey } : {}),
    ...(options.signal ? { signal: options.signal } : {}),
  };
}

/**
 * The provider's compaction of `messages`: its `item` as received, `summary` its readable text (Anthropic's,
 * checked like a summary), `''` for an encrypted one (OpenAI's).
 * @throws LLMResponseError (`CTXKIT_LLM_RESPONSE_INVALID`) when the answer holds no compaction item, or a contentless
 *   one
 * @throws LLMTimeoutError (`CTXKIT_LLM_TIMEOUT`) past the deadline; LLMRequestError from the client
 */
export async function compactWithProvider(
  messages: ReadonlyArray<ChatMessage>,
  options: ProviderCompactionOptions,
): Promise<CompactMessagesResult> {
  const { llm } = options;
  const request = buildProviderCompactionRequest(messages, options);
  if (request.messages.every((message) => message.role === 'system'))
    throw unusableReply('nothing to compact before the kept turns', llm, request);
  const completion = await completeBeforeDeadline(llm, request, options.config.timeoutMs);
  const item = completion.message ? providerCompactionItem(completion.message) : undefined;
  if (!item)
    throw unusableReply('the provider answered the compaction request without a compaction item', llm, request);
  const text = providerCompactionText(item) ?? '';
  if (text !== '') refuseContentless(text, "the provider's compaction", llm, request);
  return { retain: '', summary: text, item, request, completion, model: request.model ?? llm.defaultModel };
}
