import type { ChatMessage, ComposeOptions, LLMPayload, ToolDefinition } from '@ctxkit/core';

import type { RunContext } from './run-context';

/**
 * What the strategy is given on one call: the run's history, the system prompt, the tools and how the payload should be
 * shaped.
 */
export interface ComposeInput {
  systemPrompt: string;
  /** A copy of the run's history array: the same frozen messages `onTurnComplete` receives; never rewritten. */
  history: ChatMessage[];
  toolDefinitions: ToolDefinition[];
  /** Small-context requests to the strategy (mode A: `collapseOlderToolResults`); absent when none applies. */
  options?: ComposeOptions;
}

/**
 * Step 1 of each model call: asks the context manager for the payload (system prompt, history,
 * tools, RAG context, compose options) and checks it against the provider's validity rules (the
 * session's check, which reads only what the payload does not share with the previous one). For
 * Anthropic, signed thinking blocks whose prefix changed since the model wrote them are left out
 * first (`ThinkingPrefixBinding`) and reported in `stats.invalidatedThinking`. The small-context step chooses the
 * prompt and tools (mode C) and the compose options (mode A); the history is always the run's own. The budget step then
 * records the stats and runs the pre-send check.
 *
 * This is the kernel's one call of `composePayload`, always with its five arguments: the run's
 * `ragContext` and the compose options are `undefined` when there are none (the options are the
 * strategy's own copy, which it may keep).
 * @throws ProviderPayloadError (`CTXKIT_PROVIDER_PAYLOAD_INVALID`) rather than send a payload the provider would reject
 * @throws whatever `composePayload` throws (`BudgetExceededError`, `StrategyError`)
 */
export async function composeStep(
  context: RunContext,
  input: ComposeInput,
  ragContext: string | undefined,
): Promise<LLMPayload> {
  const { providerCheck, thinkingBinding: binding } = context.session;
  const options = input.options ? { ...input.options } : undefined;
  const payload = await context.manager.composePayload(
    input.systemPrompt,
    input.history,
    input.toolDefinitions.slice(),
    ragContext,
    options,
  );
  if (!binding) {
    providerCheck.check(payload.messages);
    return payload;
  }
  const reviewed = binding.review(payload.messages, payload.tools);
  const sent: LLMPayload =
    reviewed.invalidated.length === 0
      ? payload
      : {
          ...payload,
          messages: reviewed.messages,
          stats: { ...payload.stats, invalidatedThinking: reviewed.invalidated },
        };
  providerCheck.check(sent.messages, { thinkingBinding: binding, tools: sent.tools });
  return sent;
}
