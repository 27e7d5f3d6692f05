import type { ProviderName } from '@ctxkit/core';

/**
 * The wire formats ctxkit can send a canonical conversation in (core's `ProviderName`, which an
 * LLM client declares as its `provider`):
 * - `openai-chat`: OpenAI chat completions (also Ollama, llama.cpp server, vLLM);
 * - `openai-responses`: OpenAI Responses API input items;
 * - `anthropic`: Anthropic Messages API.
 * @see docs/08-kernel.md
 */
export type { ProviderName };

/** Every {@link ProviderName}, in a stable order. */
export const PROVIDER_NAMES: readonly ProviderName[] = ['openai-chat', 'openai-responses', 'anthropic'];
