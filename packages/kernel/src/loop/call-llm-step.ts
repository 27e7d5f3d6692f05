import { conversationCacheKey, safeEmit, type CtxkitEventBus, type ILLMClient, type LLMCompletion, type LLMCompletionRequest, type LLMPayload } from '@ctxkit/core';
import { frozenMessage } from './frozen-message';
import { eventBase, type RunState } from './run-state';

/** Request settings the loop passes through to the client. */
export interface CallSettings {
  model?: string;
  maxOutputTokens?: number;
  timeoutMs?: number;
  signal?: AbortSignal;
}

/**
 * The answer's token limit asked of the client: the agent's `maxOutputTokens` when set, else what the
 * payload's budget reserves for the answer (`stats.budget.reserveOutputTokens`), else none.
 */
export function outputTokensFor(payload: LLMPayload, settings: CallSettings): number | undefined {
  if (settings.maxOutputTokens !== undefined) return settings.maxOutputTokens;
  const reserved = payload.stats?.budget?.reserveOutputTokens;
  return reserved !== undefined && reserved > 0 ? reserved : undefined;
}

/**
 * Step 2: sends the payload (messages and tools, exactly as composed) to the model with the agent's
 * model and the answer's token limit ({@link outputTokensFor}), appends a frozen copy of the answer
 * to the history, records the usage (and teaches the token-count calibration the provider's count
 * of the payload) and emits `llm-usage` (with the provider's cache-miss diagnosis when it gave one). With a thinking binding (Anthropic), the request is recorded
 * as the session's last one before it is sent (and the answer's thinking bound to it), and
 * `thinking-invalidated` is emitted when the payload left signed thinking blocks out.
 * @throws the client's typed errors (`LLMRequestError`, `LLMTimeoutError`, `LLMResponseError`)
 */
export async function callLlmStep(
  state: RunState,
  llm: ILLMClient,
  events: CtxkitEventBus,
  payload: LLMPayload,
  settings: CallSettings,
): Promise<LLMCompletion> {
  const request: LLMCompletionRequest = { messages: payload.messages, tools: payload.tools.length > 0 ? payload.tools : null, cacheKey: conversationCacheKey(state.agentId, state.sessionId) };
  if (settings.model !== undefined) request.model = settings.model;
  const maxOutputTokens = outputTokensFor(payload, settings);
  if (maxOutputTokens !== undefined) request.maxOutputTokens = maxOutputTokens;
  if (settings.timeoutMs !== undefined) request.timeoutMs = settings.timeoutMs;
  if (settings.signal !== undefined) request.signal = settings.signal;
  if (state.thinkingBinding) {
    state.thinkingBinding.commit(payload.messages, payload.tools);
    const invalidated = payload.stats?.invalidatedThinking;
    if (invalidated && invalidated.length > 0) safeEmit(events, 'thinking-invalidated', { ...eventBase(state), invalidated });
  }
  const completion = await llm.complete(request);
  state.thinkingBinding?.recordAnswer(completion.message);
  const call = state.steps;
  state.steps++;
  state.usages.push(completion.usage);
  if (state.calibration && !llm.offline) {
    const { input_tokens, cache_creation_tokens, cache_read_tokens } = completion.usage;
    const report = await state.calibration.observe(state.sessionId, call, payload, input_tokens + cache_creation_tokens + cache_read_tokens);
    if (report) state.budget.tokenCalibration.push(report);
  }
  state.history.push(frozenMessage(completion.message));
  safeEmit(events, 'llm-usage', { ...eventBase(state), usage: completion.usage, model: completion.model, ...(completion.cacheMiss ? { cacheMiss: completion.cacheMiss } : {}) });
  return completion;
}
