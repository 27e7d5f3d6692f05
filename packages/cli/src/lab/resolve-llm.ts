import { type ILLMClient, LLMNotConfiguredError } from '@ctxkit/core';
import { createLLMClientFromEnv } from '@ctxkit/kernel';

/** Which model the lab uses for summaries and extraction, and how to say so. */
export interface LabLLM {
  llm: ILLMClient | undefined;
  description: string;
}

export const OFFLINE_DESCRIPTION =
  'offline fallbacks, no LLM: the extractive summarizer (summaries) and the schema pattern extractor (entity state)';

/**
 * `offline`: no model (strategies use their offline fallbacks, named as such); `env`: the endpoint
 * configured in the environment (OPENAI_* or ANTHROPIC_*), required; `auto`: the environment's when
 * configured, else offline.
 */
export function resolveLabLLM(mode: 'auto' | 'offline' | 'env'): LabLLM {
  if (mode === 'offline') return { llm: undefined, description: OFFLINE_DESCRIPTION };
  const llm = createLLMClientFromEnv();
  if (!llm) {
    if (mode === 'env') throw new LLMNotConfiguredError('ctxkit compare --llm env');
    return { llm: undefined, description: OFFLINE_DESCRIPTION };
  }
  return { llm, description: `${llm.name} (model ${llm.defaultModel}, a configured endpoint)` };
}
