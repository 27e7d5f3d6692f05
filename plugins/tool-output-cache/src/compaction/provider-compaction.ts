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

/**
 * Inputs of {@link compactWithProvider}: those of the summary call (the client's `providerCompaction` is set; the
 * system prompt and `cacheKey` are sent as a turn sends them), and the latest payload's tools, sent as a turn sends
 * them (the provider reads them, and the prompt cache needs them).
 */
export interface ProviderCompactionOptions extends Omit<CompactMessagesOptions, 'stripTrailingToolCalls'> {
  tools: ReadonlyArray<ToolDefinition>;
}

/**
 * Instructions for the provider's summary: `undefined` (the provider's own prompt) unless
 * `summaryDirectives`, `retainDirectives` or a `compact` focus ask for more, which are then listed.
 * Anthropic replaces its prompt with them; OpenAI takes none.
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
 * The provider compaction request: the messages to summarize (a trailing assistant `tool_calls`
 * message stripped, as the provider refuses an unfinished turn), after the system prompt, with the
 * payload's tools and the conversation's `cacheKey`, as a turn carries them, so that the request
 * starts with the bytes of the turns that sent them; and `providerCompaction` instead of an
 * instruction appended.
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
 * Asks the provider to compact `messages` (the part of the view a compaction replaces) before the
 * `compaction.timeoutMs` deadline. The reply's `item` is the provider's compaction item, kept as
 * received; `summary` is its readable text (Anthropic's content, checked like a summary: an
 * acknowledgement or an error message is refused), `''` for an encrypted one (OpenAI's).
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
