import type { ILLMClient, LLMCompletion, LLMCompletionRequest } from '../contracts/llm-client';
import { completeBeforeDeadline } from './complete-before-deadline';

/** The deadline of a call when neither the request nor the client names one. */
const DEFAULT_CALL_TIMEOUT_MS = 60_000;

/**
 * Base of a model client that wraps another library's model (an AI SDK language model, a LangChain
 * chat model): `complete` sends every request to the client's own model and bounds it with
 * {@link completeBeforeDeadline} (the request's `timeoutMs`, else the client's, else 60 s), so a
 * model that never answers or ignores its abort signal still ends in `LLMTimeoutError`, and a
 * caller's abort ends the call at once. A subclass implements {@link completeOnce}: one call,
 * whose `request.signal` fires at the deadline or when the caller aborts.
 */
export abstract class DeadlineBoundLLMClient implements ILLMClient {
  readonly offline = false;
  private readonly timeoutMs: number;

  /**
   * @param name shown wherever the client's answers are used
   * @param defaultModel the wrapped model's id; every request is sent to it
   * @param timeoutMs the deadline of a request that names none (default 60,000)
   */
  protected constructor(
    readonly name: string,
    readonly defaultModel: string,
    timeoutMs: number | undefined,
  ) {
    this.timeoutMs = timeoutMs ?? DEFAULT_CALL_TIMEOUT_MS;
  }

  complete(request: LLMCompletionRequest): Promise<LLMCompletion> {
    const timeoutMs = request.timeoutMs ?? this.timeoutMs;
    const once: ILLMClient = {
      name: this.name,
      defaultModel: this.defaultModel,
      offline: false,
      complete: (bounded) => this.completeOnce(bounded, timeoutMs),
    };
    return completeBeforeDeadline(once, { ...request, model: this.defaultModel }, timeoutMs);
  }

  /** One call of the wrapped model; `timeoutMs` is the deadline `complete` enforces. */
  protected abstract completeOnce(request: LLMCompletionRequest, timeoutMs: number): Promise<LLMCompletion>;
}
