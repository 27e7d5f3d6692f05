import {
  type ChatMessage,
  type ILLMClient,
  type LLMCompletionRequest,
  LLMResponseError,
  providerCompactionItem,
  providerCompactionText,
  type SystemMessage,
  type ToolDefinition,
} from '@ctxkit/core';
import { completeBeforeDeadline, contentlessSummary, contentlessSummaryMessage } from '@ctxkit/core/strategy-kit';

import type { CompactMessagesResult } from './compact-messages';
import type { CompactionConfig } from './compaction-config';
import { stripTrailingToolCalls } from './strip-trailing-tool-calls';

/** Inputs of {@link compactWithProvider}. */
export interface ProviderCompactionOptions {
  /** The agent's client; its `providerCompaction` is set. */
  llm: ILLMClient;
  /** The agent's model, used when `config.model` is `null`. */
  callerModel: string;
  config: CompactionConfig;
  /** The latest payload's system prompt, sent first as a turn sends it. */
  systemPrompt?: string;
  /**
   * The latest payload's tools, sent as a turn sends them (the provider reads them, and the prompt cache needs them).
   */
  tools: ReadonlyArray<ToolDefinition>;
  /** What the `compact` tool was asked to focus on. */
  focus?: string;
  /** The conversation's `cacheKey`, sent as a turn sends it. */
  cacheKey?: string;
  signal?: AbortSignal;
}

/** True when a compaction of `llm` goes to the provider under `engine`. */
export function usesProviderCompaction(engine: CompactionConfig['engine'], llm: ILLMClient): boolean {
  return engine !== 'ctxkit' && llm.providerCompaction !== undefined;
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
  const asks = [...config.retainDirectives, ...config.summaryDirectives]
    .map((directive) => directive.trim())
    .filter((directive) => directive !== '');
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
  const system: SystemMessage[] = options.systemPrompt ? [{ role: 'system', content: options.systemPrompt }] : [];
  const instructions = providerCompactionInstructions(options.config, options.focus);
  return {
    model: options.config.model ?? options.callerModel,
    messages: [...system, ...stripTrailingToolCalls(messages)],
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
  const request = buildProviderCompactionRequest(messages, options);
  if (request.messages.every((message) => message.role === 'system'))
    throw new LLMResponseError('nothing to compact before the kept turns', {
      client: options.llm.name,
      model: request.model,
    });
  const completion = await completeBeforeDeadline(options.llm, request, options.config.timeoutMs);
  const item = completion.message ? providerCompactionItem(completion.message) : undefined;
  if (!item)
    throw new LLMResponseError('the provider answered the compaction request without a compaction item', {
      client: options.llm.name,
      model: request.model,
    });
  const text = providerCompactionText(item) ?? '';
  const contentless = text === '' ? undefined : contentlessSummary(text);
  if (contentless)
    throw new LLMResponseError(
      `the provider's compaction is refused: ${contentlessSummaryMessage(contentless, text)}`,
      { client: options.llm.name, model: request.model },
    );
  return { retain: '', summary: text, item, request, completion, model: request.model ?? options.llm.defaultModel };
}
