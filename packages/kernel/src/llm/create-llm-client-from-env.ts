import type { ILLMClient } from '@ctxkit/core';

import { AnthropicClient } from './anthropic-client';
import { OpenAICompatibleClient } from './openai-compatible-client';
import type { RetryOptions } from './retry-options';

/** Options of {@link createLLMClientFromEnv}. */
export interface LLMClientFromEnvOptions {
  /** @default process.env */
  env?: Record<string, string | undefined>;
  /** Which provider wins when both are configured. @default 'openai' */
  prefer?: 'openai' | 'anthropic';
  timeoutMs?: number;
  retry?: RetryOptions;
}

/**
 * Builds the LLM client the environment configures, or `undefined` when it configures none (the
 * caller then uses an offline fallback and says so):
 * - OpenAI-compatible when `OPENAI_BASE_URL` or `OPENAI_API_KEY` is set (`OPENAI_MODEL` names the
 *   model; a base URL alone suits Ollama, llama.cpp server, vLLM);
 * - Anthropic when `ANTHROPIC_API_KEY` is set (`ANTHROPIC_BASE_URL`, `ANTHROPIC_MODEL`).
 * `CTXKIT_LLM_PROVIDER=openai|anthropic` picks one when both are set.
 * @see docs/08-kernel.md
 */
export function createLLMClientFromEnv(options: LLMClientFromEnvOptions = {}): ILLMClient | undefined {
  const env = options.env ?? process.env;
  const openai = Boolean(env.OPENAI_BASE_URL || env.OPENAI_API_KEY);
  const anthropic = Boolean(env.ANTHROPIC_API_KEY);
  const fromEnv =
    env.CTXKIT_LLM_PROVIDER === 'anthropic' || env.CTXKIT_LLM_PROVIDER === 'openai'
      ? env.CTXKIT_LLM_PROVIDER
      : undefined;
  const prefer = fromEnv ?? options.prefer ?? 'openai';
  const common = {
    env,
    ...(options.timeoutMs !== undefined ? { timeoutMs: options.timeoutMs } : {}),
    ...(options.retry ? { retry: options.retry } : {}),
  };
  if (anthropic && (prefer === 'anthropic' || !openai)) return new AnthropicClient(common);
  if (openai) return new OpenAICompatibleClient(common);
  return undefined;
}
