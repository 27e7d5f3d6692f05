import type { ILLMClient } from '@ctxkit/core';

import { AnthropicClient } from './anthropic-client';
import { OpenAICompatibleClient } from './openai-compatible-client';
import { OpenAIResponsesClient } from './openai-responses-client';
import type { RetryOptions } from './retry-options';

/** The providers `CTXKIT_LLM_PROVIDER` and `prefer` can name. */
export type LLMProviderFromEnv = 'openai' | 'openai-responses' | 'anthropic';

const PROVIDERS: readonly string[] = ['openai', 'openai-responses', 'anthropic'] satisfies LLMProviderFromEnv[];

/** Options of {@link createLLMClientFromEnv}. */
export interface LLMClientFromEnvOptions {
  /** @default process.env */
  env?: Record<string, string | undefined>;
  /**
   * Which provider wins when both are configured, and for OpenAI which API: `openai` is Chat Completions,
   * `openai-responses` the Responses API ({@link OpenAIResponsesClient}). `CTXKIT_LLM_PROVIDER` wins over it.
   * @default 'openai'
   */
  prefer?: LLMProviderFromEnv;
  timeoutMs?: number;
  retry?: RetryOptions;
}

/**
 * Builds the LLM client the environment configures, or `undefined` when it configures none (the
 * caller then uses an offline fallback and says so):
 * - OpenAI-compatible when `OPENAI_BASE_URL` or `OPENAI_API_KEY` is set (`OPENAI_MODEL` names the
 *   model; a base URL alone suits Ollama, llama.cpp server, vLLM);
 * - Anthropic when `ANTHROPIC_API_KEY` is set (`ANTHROPIC_BASE_URL`, `ANTHROPIC_MODEL`).
 * `CTXKIT_LLM_PROVIDER=openai|anthropic` picks one when both are set; `openai-responses` picks OpenAI through the
 * Responses API ({@link OpenAIResponsesClient}: stateless, encrypted reasoning, provider compaction).
 * @see docs/08-kernel.md
 */
export function createLLMClientFromEnv(options: LLMClientFromEnvOptions = {}): ILLMClient | undefined {
  const env = options.env ?? process.env;
  const openai = Boolean(env.OPENAI_BASE_URL || env.OPENAI_API_KEY);
  const anthropic = Boolean(env.ANTHROPIC_API_KEY);
  const named = env.CTXKIT_LLM_PROVIDER;
  const fromEnv = named !== undefined && PROVIDERS.includes(named) ? (named as LLMProviderFromEnv) : undefined;
  const prefer = fromEnv ?? options.prefer ?? 'openai';
  const common = {
    env,
    ...(options.timeoutMs !== undefined ? { timeoutMs: options.timeoutMs } : {}),
    ...(options.retry ? { retry: options.retry } : {}),
  };
  if (anthropic && (prefer === 'anthropic' || !openai)) return new AnthropicClient(common);
  if (openai)
    return prefer === 'openai-responses' ? new OpenAIResponsesClient(common) : new OpenAICompatibleClient(common);
  return undefined;
}
