import {
  type AssistantMessage,
  type ChatMessage,
  conversationCacheKey,
  type ILLMClient,
  type LLMCompletion,
  type LLMCompletionRequest,
  type LLMPayload,
  safeEmit,
} from '@ctxkit/core';

import type { TokenCalibrationReport } from '../budget/agent-count-calibration';
import { frozenMessage } from './frozen-message';
import type { RunContext } from './run-context';
import { eventBase, type RunRecord } from './run-record';

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

/** One model call's answer, for the loop to record. */
export interface ModelAnswer {
  completion: LLMCompletion;
  /** The answer as the history keeps it: a frozen copy of `completion.message`. */
  message: AssistantMessage;
  /** What the token-count calibration learned from the call, when it learned. */
  calibration?: TokenCalibrationReport;
}

/**
 * Step 2: sends the payload (messages and tools, exactly as composed) to the model with the agent's
 * model and the answer's token limit ({@link outputTokensFor}), teaches the token-count calibration
 * the provider's count of the payload, and emits `llm-usage` (with the provider's cache-miss
 * diagnosis when it gave one); the loop records the answer ({@link recordAnswer}). With a thinking
 * binding (Anthropic), the request is recorded as the session's last one before it is sent (and the
 * answer's thinking bound to it), and `thinking-invalidated` is emitted when the payload left signed
 * thinking blocks out. `history` is the run's history the payload was composed from.
 * @throws the client's typed errors (`LLMRequestError`, `LLMTimeoutError`, `LLMResponseError`)
 */
export async function callLlmStep(
  context: RunContext,
  record: Readonly<RunRecord>,
  history: readonly ChatMessage[],
  llm: ILLMClient,
  payload: LLMPayload,
  settings: CallSettings,
): Promise<ModelAnswer> {
  const { events, session, calibration } = context;
  const request: LLMCompletionRequest = {
    messages: payload.messages,
    tools: payload.tools.length > 0 ? payload.tools : null,
    cacheKey: conversationCacheKey(context.agentId, context.sessionId),
  };
  if (settings.model !== undefined) request.model = settings.model;
  const maxOutputTokens = outputTokensFor(payload, settings);
  if (maxOutputTokens !== undefined) request.maxOutputTokens = maxOutputTokens;
  if (settings.timeoutMs !== undefined) request.timeoutMs = settings.timeoutMs;
  if (settings.signal !== undefined) request.signal = settings.signal;
  const binding = session.thinkingBinding;
  if (binding) {
    binding.commit(payload.messages, payload.tools);
    const invalidated = payload.stats?.invalidatedThinking;
    if (invalidated && invalidated.length > 0)
      safeEmit(events, 'thinking-invalidated', { ...eventBase(context, record, history), invalidated });
  }
  const completion = await llm.complete(request);
  binding?.recordAnswer(completion.message);
  let learned: TokenCalibrationReport | undefined;
  if (calibration && !llm.offline) {
    const { input_tokens, cache_creation_tokens, cache_read_tokens } = completion.usage;
    learned = await calibration.observe(
      context.sessionId,
      record.steps,
      payload,
      input_tokens + cache_creation_tokens + cache_read_tokens,
    );
  }
  const message = frozenMessage(completion.message);
  // The answer adds no user message: the turn is the history's.
  safeEmit(events, 'llm-usage', {
    ...eventBase(context, record, history),
    usage: completion.usage,
    model: completion.model,
    ...(completion.cacheMiss ? { cacheMiss: completion.cacheMiss } : {}),
  });
  return { completion, message, ...(learned ? { calibration: learned } : {}) };
}

/**
 * Records a model call in the run: one more step, its usage, what the calibration learned, and the answer appended to
 * the history.
 */
export function recordAnswer(record: RunRecord, answer: ModelAnswer): void {
  record.steps++;
  record.usages.push(answer.completion.usage);
  if (answer.calibration) record.budget.tokenCalibration.push(answer.calibration);
  record.history.push(answer.message);
}
