import type { ChatMessage, LLMPayload, ToolDefinition } from '@ctxkit/core';
import type { ProviderName } from '../providers/provider-name';
import { validateForProvider } from '../providers/validate-for-provider';
import type { RunState } from './run-state';

/** What the strategy is given on one call: the history (or its small-context view), the system prompt and the tools. */
export interface ComposeInput {
  systemPrompt: string;
  history: ChatMessage[];
  toolDefinitions: ToolDefinition[];
}

/**
 * Step 1 of each model call: asks the context manager for the payload (system prompt, history,
 * tools, RAG context) and checks it against the provider's validity rules. The small-context step
 * chooses what it is given (mode A's view of the history, mode C's prompt and tools); the budget
 * step then records its stats and runs the pre-send check.
 * @throws ProviderPayloadError (`CTXKIT_PROVIDER_PAYLOAD_INVALID`) rather than send a payload the provider would reject
 * @throws whatever `composePayload` throws (`BudgetExceededError`, `StrategyError`)
 */
export async function composeStep(state: RunState, input: ComposeInput, provider: ProviderName, ragContext: string | undefined): Promise<LLMPayload> {
  const payload =
    ragContext === undefined
      ? await state.manager.composePayload(input.systemPrompt, input.history.slice(), input.toolDefinitions.slice())
      : await state.manager.composePayload(input.systemPrompt, input.history.slice(), input.toolDefinitions.slice(), ragContext);
  validateForProvider(provider, payload.messages);
  return payload;
}
