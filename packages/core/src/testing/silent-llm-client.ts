import type { ILLMClient, LLMCompletion, LLMCompletionRequest } from '../contracts/llm-client';

/**
 * A model that never answers, as over a dead connection: `complete()` never settles and ignores the
 * abort signal, so only a deadline the caller enforces itself ends the wait. Records the signal of
 * every request, to check that the caller aborted it.
 */
export class SilentLLMClient implements ILLMClient {
  readonly name = 'silent';
  readonly defaultModel = 'silent-model';
  readonly offline = false;
  /** The abort signal of each request, in call order. */
  readonly signals: Array<AbortSignal | undefined> = [];

  complete(request: LLMCompletionRequest): Promise<LLMCompletion> {
    this.signals.push(request.signal);
    return new Promise<LLMCompletion>(() => undefined);
  }
}
