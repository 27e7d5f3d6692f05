import { CtxkitError } from './ctxkit-error';
import { ErrorCodes } from './error-codes';

/** What the provider said about the request it refused as too long for the model's context. */
export interface ContextOverflowDetails {
  /** The client that sent the request (`openai:gpt-4o` ...). */
  client: string;
  /** The model's context limit in tokens, when the provider's message gives it. */
  limit?: number;
  /** The tokens the provider counted in the request, when its message gives them. */
  actual?: number;
  /** The HTTP status of the refusal, when there was one. */
  status?: number;
  /** The provider's own words. */
  providerMessage: string;
}

/**
 * The provider refused a request as longer than the model's context (OpenAI
 * `context_length_exceeded`, Anthropic "prompt is too long", Gemini "input token count … exceeds",
 * Ollama and llama.cpp "exceeds the context size"), whatever the client. `limit` and `actual` are the
 * provider's numbers, when it gave them. The kernel retries once with a payload cut to fit before
 * it lets this error through.
 */
export class ContextOverflowError extends CtxkitError {
  /** The model's context limit the provider gave, in its tokens. */
  readonly limit: number | undefined;
  /** The tokens the provider counted in the refused request. */
  readonly actual: number | undefined;
  readonly status: number | undefined;
  /** What the provider said, as it said it. */
  readonly providerMessage: string;
  /** The client that sent the request. */
  readonly client: string;
  /** True when the request was refused again after the kernel cut the payload to fit. */
  readonly retried: boolean;

  constructor(details: ContextOverflowDetails, options: { cause?: unknown; retried?: boolean } = {}) {
    const numbers =
      details.limit !== undefined && details.actual !== undefined
        ? ` (${details.actual} tokens sent, the model takes ${details.limit})`
        : details.limit !== undefined
          ? ` (the model takes ${details.limit} tokens)`
          : details.actual !== undefined
            ? ` (${details.actual} tokens sent)`
            : '';
    super({
      code: ErrorCodes.CONTEXT_OVERFLOW,
      category: 'provider',
      message:
        `${details.client}: the request is longer than the model's ` +
        `context${numbers}${options.retried ? ', again after the payload was cut to fit' : ''}. The provider ` +
        `said: ${details.providerMessage}`,
      fix:
        "Give the strategy the model's real window (maxContextTokens in the agent's plugin.json, or " +
        "runtime.models.register for the model), or raise the server's context size (Ollama num_ctx, llama.cpp " +
        '--ctx-size).',
      details: { ...details, retried: options.retried === true },
      cause: options.cause,
    });
    this.limit = details.limit;
    this.actual = details.actual;
    this.status = details.status;
    this.providerMessage = details.providerMessage;
    this.client = details.client;
    this.retried = options.retried === true;
  }
}
