import {
  type AssistantMessage,
  type LLMCompletion,
  type LLMErrorDetails,
  LLMResponseError,
  type ProviderUsage,
  toTokenUsage,
} from '@ctxkit/core';

/** What a provider answered, already converted to a canonical assistant message. */
export interface ProviderAnswer {
  message: AssistantMessage;
  usage: ProviderUsage | null | undefined;
  /** The model the provider says answered; the requested one is used when it says none. */
  model: unknown;
  finishReason: unknown;
}

/**
 * Builds the `LLMCompletion` of an answer: its text, its usage mapped with core's `toTokenUsage`,
 * the answering model and the finish reason.
 * @param requestedModel the model the request named (or the client's default)
 * @param details the call's details, for the error
 * @throws LLMResponseError (`CTXKIT_LLM_RESPONSE_INVALID`) when the answer is empty: no text and no tool calls
 */
export function assistantCompletion(
  answer: ProviderAnswer,
  requestedModel: string,
  details: LLMErrorDetails,
): LLMCompletion {
  const text = answer.message.content ?? '';
  if (text.trim() === '' && !(answer.message.tool_calls && answer.message.tool_calls.length > 0)) {
    throw new LLMResponseError('the answer is empty (no text and no tool calls)', {
      ...details,
      finishReason: answer.finishReason,
    });
  }
  const completion: LLMCompletion = {
    message: answer.message,
    text,
    usage: toTokenUsage(answer.usage),
    model: typeof answer.model === 'string' ? answer.model : requestedModel,
  };
  if (typeof answer.finishReason === 'string') completion.finishReason = answer.finishReason;
  return completion;
}
