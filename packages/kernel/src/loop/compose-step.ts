import { remainingForToolOutput, type LLMPayload } from '@ctxkit/core';
import type { ProviderName } from '../providers/provider-name';
import { validateForProvider } from '../providers/validate-for-provider';
import type { RunState } from './run-state';

/**
 * Step 1 of each model call: asks the context manager for the payload (system prompt, history,
 * every tool, RAG context), checks it against the provider's validity rules, and records its stats
 * and the tool-output token limit it leaves (`remainingForToolOutput`, seed 004 Phase 2).
 * @throws ProviderPayloadError (`CTXKIT_PROVIDER_PAYLOAD_INVALID`) rather than send a payload the provider would reject
 * @throws whatever `composePayload` throws (`BudgetExceededError`, `StrategyError`)
 */
export async function composeStep(
  state: RunState,
  systemPrompt: string,
  provider: ProviderName,
  ragContext: string | undefined,
): Promise<LLMPayload> {
  const payload =
    ragContext === undefined
      ? await state.manager.composePayload(systemPrompt, state.history.slice(), state.toolDefinitions.slice())
      : await state.manager.composePayload(systemPrompt, state.history.slice(), state.toolDefinitions.slice(), ragContext);
  validateForProvider(provider, payload.messages);
  state.payloads.push(payload.stats);
  const budget = payload.stats?.budget;
  state.toolOutputTokenLimit = budget ? remainingForToolOutput(budget, budget.used).toolOutputLimit : undefined;
  return payload;
}
