import { LLMNotConfiguredError } from '@ctxkit/core';
import type OpenAI from 'openai';

import { sdkAttemptLimits, type SdkAttemptOptions } from './sdk-attempt-limits';

/** The public OpenAI endpoint, used when no base URL is given. */
export const OPENAI_DEFAULT_BASE_URL = 'https://api.openai.com/v1';

/**
 * The SDK refuses to start without a credential; a client for a keyless local server gets this one
 * and sends no `authorization` header.
 */
const KEYLESS = 'keyless-local-server';

/** What an `openai` SDK client is made from; every field falls back to its environment variable. */
export interface OpenAISdkConnectionOptions extends SdkAttemptOptions {
  /** @default env OPENAI_BASE_URL, else https://api.openai.com/v1 */
  baseURL?: string;
  /** @default env OPENAI_API_KEY */
  apiKey?: string;
  headers?: Record<string, string>;
  /** Also read for `OPENAI_ORG_ID` and `OPENAI_PROJECT_ID`. @default process.env */
  env?: Record<string, string | undefined>;
}

/** An `openai` SDK client and what requests through it need. */
export interface OpenAISdkConnection {
  /** The base URL, without a trailing slash. */
  baseURL: string;
  sdk: OpenAI;
  /** The SDK's client class, whose statics are the error classes it throws. */
  errors: typeof OpenAI;
}

/**
 * The SDK's client class, loaded when the first client is made: importing the kernel (or the CLI)
 * does not load the SDK's few hundred modules.
 */
function openAISdk(): typeof OpenAI {
  return (require('openai') as typeof import('openai')).default;
}

/**
 * An `openai` SDK client for OpenAI or any server that speaks its protocol, configured from the
 * options, else the environment: base URL, key (none for a keyless local server, which then gets no
 * `authorization` header), organization and project, the extra headers, and the SDK's per-attempt
 * timeout and retries.
 * @param who names the client in the error thrown without a key
 * @throws LLMNotConfiguredError (`CTXKIT_LLM_NOT_CONFIGURED`) for api.openai.com without a key
 */
export function createOpenAISdkConnection(options: OpenAISdkConnectionOptions, who: string): OpenAISdkConnection {
  const env = options.env ?? process.env;
  const baseURL = (options.baseURL ?? env.OPENAI_BASE_URL ?? OPENAI_DEFAULT_BASE_URL).replace(/\/+$/, '');
  const apiKey = options.apiKey ?? (env.OPENAI_API_KEY || undefined);
  if (apiKey === undefined && /^https:\/\/api\.openai\.com/.test(baseURL)) {
    throw new LLMNotConfiguredError(`${who} for api.openai.com (no OPENAI_API_KEY)`);
  }
  const errors = openAISdk();
  const sdk = new errors({
    baseURL,
    apiKey: apiKey ?? KEYLESS,
    organization: env.OPENAI_ORG_ID || null,
    project: env.OPENAI_PROJECT_ID || null,
    ...sdkAttemptLimits(options),
    defaultHeaders: { ...(options.headers ?? {}), ...(apiKey === undefined ? { authorization: null } : {}) },
  });
  return { baseURL, sdk, errors };
}
