import type { ILLMClient, LLMCompletion, LLMCompletionRequest } from '../contracts/llm-client';

/** Options of {@link SilentLLMClient}. */
export interface SilentLLMClientOptions {
  /**
   * `true`: a request ends when its abort signal aborts (rejected with the signal's reason), as a
   * client over a connection that is up but never answers does; `false`: the abort signal is ignored,
   * as over a dead connection. @default false
   */
  honourAbort?: boolean;
}

/**
 * A model that never answers: `complete()` never settles by itself. By default it ignores the abort
 * signal, as over a dead connection, so only a deadline the caller enforces itself ends the wait;
 * with `honourAbort` a request ends when its signal aborts. Records the signal of every request, to
 * check that the caller aborted it.
 */
export class SilentLLMClient implements ILLMClient {
  readonly name = 'silent';
  readonly defaultModel = 'silent-model';
  readonly offline = false;
  /** The abort signal of each request, in call order. */
  readonly signals: Array<AbortSignal | undefined> = [];

  constructor(private readonly options: SilentLLMClientOptions = {}) {}

  complete(request: LLMCompletionRequest): Promise<LLMCompletion> {
    this.signals.push(request.signal);
    const { signal } = request;
    if (!this.options.honourAbort || signal === undefined) return new Promise<LLMCompletion>(() => undefined);
    return new Promise<LLMCompletion>((_resolve, reject) => {
      if (signal.aborted) reject(signal.reason);
      else signal.addEventListener('abort', () => reject(signal.reason), { once: true });
    });
  }
}
