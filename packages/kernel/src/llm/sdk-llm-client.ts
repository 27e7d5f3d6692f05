import {
  type ILLMClient,
  type LLMCompletion,
  type LLMCompletionRequest,
  type LLMErrorDetails,
  LLMResponseError,
} from '@ctxkit/core';

import { DEFAULT_ATTEMPT_TIMEOUT_MS, sdkAttemptLimits, type SdkAttemptOptions } from './sdk-attempt-limits';
import type { SdkErrorClasses } from './sdk-error-classes';
import { sendThroughSdk } from './send-through-sdk';

/** The options every client on an official SDK reads; each provider's options add their own. */
export interface SdkLLMClientOptions extends SdkAttemptOptions {
  /** @default globalThis.fetch */
  fetch?: typeof fetch;
}

/** Who a client is, once its options and environment are read. */
export interface SdkLLMClientIdentity {
  /** Shown wherever the client's answers are used (`anthropic:<model>`). */
  name: string;
  /** The model used when a request names none. */
  defaultModel: string;
  /** The endpoint's base URL, without a trailing slash. */
  baseURL: string;
}

/** What the SDK's create call is given besides the body: the attempt timeout and the caller's signal. */
export interface SdkRequestOptions {
  timeout: number;
  signal?: AbortSignal;
}

/** Where one request goes and the SDK call that sends it with the fetch and options it is given. */
export interface SdkRequest {
  /** The endpoint, for errors. */
  url: string;
  /** The SDK's error classes, to map what it throws. */
  errors: SdkErrorClasses;
  create: (fetch: typeof globalThis.fetch, options: SdkRequestOptions) => Promise<unknown>;
}

/** The provider's answer, known to be an object, and the call's details for the errors about it. */
export interface SdkReply<Reply extends object> {
  /** The answer's fields as the provider sent them: not yet checked beyond being an object. */
  reply: Reply;
  details: LLMErrorDetails;
}

/**
 * What a model client on an official SDK does the same for every provider: its name, default model
 * and base URL, the SDK's timeout and retries from the options, and sending a request through the
 * SDK with the per-attempt timeout, the caller's signal and an attempt count. Each provider's client
 * builds its body and reads its answer.
 * @see docs/08-kernel.md
 */
export abstract class SdkLLMClient<Options extends SdkLLMClientOptions> implements ILLMClient {
  readonly name: string;
  readonly defaultModel: string;
  readonly offline = false;
  readonly baseURL: string;
  protected readonly options: Options;

  protected constructor(options: Options, identity: SdkLLMClientIdentity) {
    this.options = options;
    this.name = identity.name;
    this.defaultModel = identity.defaultModel;
    this.baseURL = identity.baseURL;
  }

  abstract complete(request: LLMCompletionRequest): Promise<LLMCompletion>;

  /** The SDK constructor's timeout and retries, from the options. */
  protected sdkAttemptLimits(): { timeout: number; maxRetries: number } {
    return sdkAttemptLimits(this.options);
  }

  /**
   * Sends `request` through the SDK with the request's timeout (else the client's) and signal.
   * @throws LLMRequestError, LLMTimeoutError (what the SDK threw, mapped)
   * @throws LLMResponseError (`CTXKIT_LLM_RESPONSE_INVALID`) when the answer is not an object
   */
  protected async send<Reply extends object>(
    request: LLMCompletionRequest,
    model: string,
    sdkRequest: SdkRequest,
  ): Promise<SdkReply<Reply>> {
    const timeoutMs = Math.max(1, Math.ceil(request.timeoutMs ?? this.options.timeoutMs ?? DEFAULT_ATTEMPT_TIMEOUT_MS));
    const { answer, attempts, status } = await sendThroughSdk(
      {
        client: this.name,
        model,
        url: sdkRequest.url,
        timeoutMs,
        errors: sdkRequest.errors,
        ...(this.options.fetch ? { fetch: this.options.fetch } : {}),
      },
      (fetch) =>
        sdkRequest.create(fetch, { timeout: timeoutMs, ...(request.signal ? { signal: request.signal } : {}) }),
    );
    const details = { client: this.name, model, status, attempts };
    if (answer === null || answer === undefined || typeof answer !== 'object')
      throw new LLMResponseError('the body is not a JSON object', details);
    return { reply: answer as Reply, details };
  }
}
