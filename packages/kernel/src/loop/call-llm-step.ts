import { safeEmit, type CtxkitEventBus, type LLMClient, type LLMCompletion, type LLMCompletionRequest, type LLMPayload } from '@ctxkit/core';
import { eventBase, type RunState } from './run-state';

/** Request settings the loop passes through to the client. */
export interface CallSettings {
  model?: string;
  maxOutputTokens?: number;
  timeoutMs?: number;
  signal?: AbortSignal;
}

/**
 * Step 2: sends the payload (messages and tools, exactly as composed) to the model, appends the
 * answer to the history, records the usage and emits `llm-usage`.
 * @throws the client's typed errors (`LLMRequestError`, `LLMTimeoutError`, `LLMResponseError`)
 */
export async function callLlmStep(
  state: RunState,
  llm: LLMClient,
  events: CtxkitEventBus,
  payload: LLMPayload,
  settings: CallSettings,
): Promise<LLMCompletion> {
  const request: LLMCompletionRequest = { messages: payload.messages, tools: payload.tools.length > 0 ? payload.tools : null };
  if (settings.model !== undefined) request.model = settings.model;
  if (settings.maxOutputTokens !== undefined) request.maxOutputTokens = settings.maxOutputTokens;
  if (settings.timeoutMs !== undefined) request.timeoutMs = settings.timeoutMs;
  if (settings.signal !== undefined) request.signal = settings.signal;
  const completion = await llm.complete(request);
  state.steps++;
  state.usages.push(completion.usage);
  state.history.push(structuredClone(completion.message));
  safeEmit(events, 'llm-usage', { ...eventBase(state), usage: completion.usage, model: completion.model });
  return completion;
}
