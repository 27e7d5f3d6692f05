import type { AssistantMessage, ChatMessage } from '../contracts/chat-message';
import type { ILLMClient, LLMCompletion, LLMCompletionRequest } from '../contracts/llm-client';
import { createTokenUsage, type ProviderUsage, type TokenUsage, toTokenUsage } from '../contracts/token-usage';
import { LLMRequestError } from '../errors/llm-request-error';
import { LLMTimeoutError } from '../errors/llm-timeout-error';
import { HeuristicTokenCounter } from '../token-counting/heuristic-counter';

/**
 * One answer of a {@link ScriptedLLMClient}:
 * - a string: the assistant's text;
 * - a partial `AssistantMessage` (e.g. `{ content: null, tool_calls: [...] }`);
 * - an `Error`: thrown by `complete()` as it is (use the `LLM*Error` classes of `@ctxkit/core`
 *   to imitate a provider failure);
 * - a {@link ScriptedReply}: a step with a delay, a usage or a finish reason;
 * - a function of the request returning any of the above (or a promise of it), to answer from
 *   what the model was sent.
 */
export type ScriptStep =
  | string
  | Partial<AssistantMessage>
  | Error
  | ScriptedReply
  | ((request: LLMCompletionRequest, callIndex: number) => ScriptStep | Promise<ScriptStep>);

/** A step with options. `reply` is resolved like any other step. */
export interface ScriptedReply {
  reply: ScriptStep;
  /**
   * Wait this long before answering. While waiting, `request.signal` and `request.timeoutMs`
   * are honoured: either one rejects the call with `LLMTimeoutError`.
   * @default 0
   */
  delayMs?: number;
  /**
   * Usage to report: a `TokenUsage` part or any provider usage shape (mapped with `toTokenUsage`).
   * @default computed with the heuristic counter: input = the request's messages and tools,
   * output = the answer
   */
  usage?: Partial<Omit<TokenUsage, 'total_tokens'>> | ProviderUsage;
  /** @default 'stop', or 'tool_calls' when the answer calls tools */
  finishReason?: string;
}

/** Options of {@link ScriptedLLMClient}. */
export interface ScriptedLLMClientOptions {
  /** @default 'scripted' */
  name?: string;
  /** Model reported when a request names none. @default 'scripted-model' */
  defaultModel?: string;
  /** When the script is exhausted, answer with the last step again instead of throwing. @default false */
  repeatLast?: boolean;
}

/** A request as the client recorded it (deep-cloned; `signal` is replaced by `hadSignal`). */
export type RecordedRequest = Omit<LLMCompletionRequest, 'signal'> & { hadSignal: boolean };

function isScriptedReply(step: object): step is ScriptedReply {
  return Object.prototype.hasOwnProperty.call(step, 'reply');
}

function abortReason(signal: AbortSignal): unknown {
  return signal.reason ?? new Error('aborted');
}

/**
 * An offline `ILLMClient` for tests and examples that answers from a script, in order. It records
 * every request it receives (`requests`, deep copies taken at call time, so a caller mutating its
 * arrays later does not change the record).
 *
 * @example
 * const llm = new ScriptedLLMClient([
 *   { content: null, tool_calls: [{ id: 'c1', type: 'function', function: { name: 'search', arguments: '{}' } }] },
 *   'Here is what I found.',
 * ]);
 *
 * @throws LLMRequestError (`CTXKIT_LLM_REQUEST_FAILED`, not retryable) when the script is exhausted
 * and `repeatLast` is off.
 * @throws LLMTimeoutError (`CTXKIT_LLM_TIMEOUT`) when a delayed step outlasts `timeoutMs` or the
 * request's signal aborts.
 * @see docs/08-kernel.md
 */
export class ScriptedLLMClient implements ILLMClient {
  readonly name: string;
  readonly defaultModel: string;
  readonly offline = true;
  /** Every request received, in order. */
  readonly requests: RecordedRequest[] = [];
  private readonly steps: ScriptStep[];
  private readonly repeatLast: boolean;
  private next = 0;
  private readonly counter = new HeuristicTokenCounter('scripted');

  constructor(script: readonly ScriptStep[] = [], options: ScriptedLLMClientOptions = {}) {
    this.steps = [...script];
    this.name = options.name ?? 'scripted';
    this.defaultModel = options.defaultModel ?? 'scripted-model';
    this.repeatLast = options.repeatLast ?? false;
  }

  /** Number of `complete()` calls so far. */
  get callCount(): number {
    return this.requests.length;
  }

  /** The last request received, or `undefined` before the first call. */
  get lastRequest(): RecordedRequest | undefined {
    return this.requests[this.requests.length - 1];
  }

  /** Steps not used yet. */
  get remaining(): number {
    return Math.max(0, this.steps.length - this.next);
  }

  /** Appends steps to the script. */
  push(...steps: ScriptStep[]): this {
    this.steps.push(...steps);
    return this;
  }

  async complete(request: LLMCompletionRequest): Promise<LLMCompletion> {
    const callIndex = this.requests.length;
    const { signal, ...rest } = request;
    this.requests.push({ ...structuredClone(rest), hadSignal: signal !== undefined });
    const model = request.model ?? this.defaultModel;

    let step: ScriptStep;
    if (this.next < this.steps.length) {
      step = this.steps[this.next++]!;
    } else if (this.repeatLast && this.steps.length > 0) {
      step = this.steps[this.steps.length - 1]!;
    } else {
      throw new LLMRequestError(
        `script exhausted: call ${callIndex + 1} but the script has ${this.steps.length} step(s)`,
        { client: this.name, model, attempts: 1 },
        {
          retryable: false,
          fix: 'Add steps to the script (or push() them), or construct the client with { repeatLast: true }.',
        },
      );
    }

    let usage: ScriptedReply['usage'];
    let finishReason: string | undefined;
    // Unwrap functions and option objects until a plain answer remains.
    for (;;) {
      if (typeof step === 'function') {
        step = await step(request, callIndex);
        continue;
      }
      if (step instanceof Error) throw step;
      if (typeof step === 'object' && step !== null && isScriptedReply(step)) {
        if (step.usage !== undefined) usage = step.usage;
        if (step.finishReason !== undefined) finishReason = step.finishReason;
        if (step.delayMs !== undefined && step.delayMs > 0) await this.wait(step.delayMs, request, model);
        step = step.reply;
        continue;
      }
      break;
    }

    const message = this.toMessage(step as string | Partial<AssistantMessage>);
    const text = message.content ?? '';
    return {
      message,
      text,
      usage: usage !== undefined ? this.toUsage(usage) : this.estimateUsage(request, message),
      model,
      finishReason: finishReason ?? (message.tool_calls && message.tool_calls.length > 0 ? 'tool_calls' : 'stop'),
    };
  }

  private toMessage(step: string | Partial<AssistantMessage>): AssistantMessage {
    if (typeof step === 'string') return { role: 'assistant', content: step };
    const copy = structuredClone(step);
    const message: AssistantMessage = { ...copy, role: 'assistant', content: copy.content ?? null };
    if (message.tool_calls !== undefined && message.tool_calls.length === 0) delete message.tool_calls;
    return message;
  }

  private toUsage(usage: NonNullable<ScriptedReply['usage']>): TokenUsage {
    const provider = usage as ProviderUsage;
    if (
      provider.prompt_tokens !== undefined ||
      provider.completion_tokens !== undefined ||
      provider.cache_creation_input_tokens !== undefined ||
      provider.cache_read_input_tokens !== undefined ||
      provider.input_tokens_details !== undefined
    ) {
      return toTokenUsage(provider);
    }
    return createTokenUsage(usage as Partial<Omit<TokenUsage, 'total_tokens'>>);
  }

  private estimateUsage(request: LLMCompletionRequest, message: AssistantMessage): TokenUsage {
    const input =
      this.counter.countMessages(request.messages as ChatMessage[]) + this.counter.countTools(request.tools ?? []);
    return createTokenUsage({ input_tokens: input, output_tokens: this.counter.countMessage(message) });
  }

  private wait(delayMs: number, request: LLMCompletionRequest, model: string): Promise<void> {
    const { signal, timeoutMs } = request;
    const details = { client: this.name, model, timeoutMs: timeoutMs ?? delayMs };
    if (signal?.aborted) return Promise.reject(new LLMTimeoutError(details, abortReason(signal)));
    return new Promise<void>((resolve, reject) => {
      const timers: Array<ReturnType<typeof setTimeout>> = [];
      const cleanup = (): void => {
        for (const timer of timers) clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
      };
      const onAbort = (): void => {
        cleanup();
        reject(new LLMTimeoutError(details, signal ? abortReason(signal) : undefined));
      };
      timers.push(
        setTimeout(() => {
          cleanup();
          resolve();
        }, delayMs),
      );
      if (timeoutMs !== undefined && timeoutMs < delayMs) {
        timers.push(
          setTimeout(() => {
            cleanup();
            reject(new LLMTimeoutError({ ...details, timeoutMs }));
          }, timeoutMs),
        );
      }
      signal?.addEventListener('abort', onAbort, { once: true });
    });
  }
}
