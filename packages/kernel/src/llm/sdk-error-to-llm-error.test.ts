import Anthropic from '@anthropic-ai/sdk';
import { ErrorCodes, LLMRequestError, LLMResponseError, LLMTimeoutError, StrategyError } from '@ctxkit/core';
import fc from 'fast-check';
import OpenAI from 'openai';

import { type FailedSdkCall, sdkErrorToLLMError } from './sdk-error-to-llm-error';

const call: FailedSdkCall = {
  client: 'openai-compatible:m',
  model: 'm',
  url: 'http://127.0.0.1:9/v1/chat/completions',
  timeoutMs: 500,
  attempts: 3,
  lastStatus: undefined,
};
const openAIError = (status: number, body: unknown, headers: Record<string, string> = {}) =>
  OpenAI.APIError.generate(status, body as object, undefined, new Headers(headers));

describe('sdkErrorToLLMError', () => {
  describe('#sdkErrorToLLMError', () => {
    it('maps each status class of the OpenAI SDK by its status', () => {
      const cases: Array<[number, string, boolean]> = [
        [400, 'BadRequestError', false],
        [401, 'AuthenticationError', false],
        [403, 'PermissionDeniedError', false],
        [404, 'NotFoundError', false],
        [409, 'ConflictError', true],
        [422, 'UnprocessableEntityError', false],
        [429, 'RateLimitError', true],
        [500, 'InternalServerError', true],
        [529, 'InternalServerError', true],
      ];
      for (const [status, sdkError, retryable] of cases) {
        const mapped = sdkErrorToLLMError(
          openAIError(status, { error: { message: `reason ${status}` } }),
          OpenAI,
          call,
        );
        expect(mapped).toBeInstanceOf(LLMRequestError);
        expect(mapped.details).toMatchObject({ status, sdkError, attempts: 3, client: 'openai-compatible:m' });
        expect((mapped as LLMRequestError).retryable).toBe(retryable);
        expect(mapped.message).toContain(`HTTP ${status}: reason ${status}`);
      }
    });

    it('reads the reason of an Anthropic error body and obeys x-should-retry', () => {
      const body = { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } };
      const told = Anthropic.APIError.generate(503, body, undefined, new Headers({ 'x-should-retry': 'false' }));
      const mapped = sdkErrorToLLMError(told, Anthropic, { ...call, client: 'anthropic:m' }) as LLMRequestError;
      expect(mapped.message).toContain('HTTP 503: Overloaded');
      expect(mapped.retryable).toBe(false);
      expect(JSON.parse(mapped.details.body as string)).toEqual(body);
    });

    it('reads retry-after-ms before retry-after, and an HTTP date', () => {
      const wait = (headers: Record<string, string>) =>
        sdkErrorToLLMError(openAIError(429, {}, headers), OpenAI, call).details.retryAfterMs;
      expect(wait({ 'retry-after-ms': '150', 'retry-after': '9' })).toBe(150);
      expect(wait({ 'retry-after': new Date(Date.now() + 60_000).toUTCString() })).toBeGreaterThan(55_000);
      expect(wait({ 'retry-after': 'soon' })).toBeUndefined();
      expect(wait({})).toBeUndefined();
    });

    it('turns any whole number of retry-after seconds into that many thousand milliseconds', () => {
      fc.assert(
        fc.property(fc.nat({ max: 86_400 }), (seconds) => {
          const mapped = sdkErrorToLLMError(openAIError(429, {}, { 'retry-after': String(seconds) }), OpenAI, call);
          return mapped.details.retryAfterMs === seconds * 1000;
        }),
      );
    });

    it('maps the abort, timeout and connection errors of both SDKs', () => {
      for (const sdk of [OpenAI, Anthropic]) {
        const aborted = sdkErrorToLLMError(new sdk.APIUserAbortError(), sdk, call);
        expect(aborted).toBeInstanceOf(LLMTimeoutError);
        expect(aborted.details).toMatchObject({ aborted: true, timeoutMs: 500 });
        const timedOut = sdkErrorToLLMError(new sdk.APIConnectionTimeoutError(), sdk, call);
        expect(timedOut.code).toBe(ErrorCodes.LLM_TIMEOUT);
        expect(timedOut.details.aborted).toBe(false);
        const reset = Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' });
        const connection = sdkErrorToLLMError(
          new sdk.APIConnectionError({ cause: new TypeError('fetch failed', { cause: reset }) }),
          sdk,
          call,
        );
        expect(connection).toBeInstanceOf(LLMRequestError);
        expect(connection.details.networkCode).toBe('ECONNRESET');
        expect(connection.message).toContain('network error (ECONNRESET): read ECONNRESET');
        expect((connection as LLMRequestError).retryable).toBe(true);
      }
    });

    it('maps a body that is not JSON, and a body cut short after its headers', () => {
      const malformed = sdkErrorToLLMError(new SyntaxError('Unexpected end of JSON input'), OpenAI, {
        ...call,
        lastStatus: 200,
      });
      expect(malformed).toBeInstanceOf(LLMResponseError);
      expect(malformed.message).toMatch(/not valid JSON/);
      const cut = sdkErrorToLLMError(new TypeError('terminated'), OpenAI, { ...call, lastStatus: 200 });
      expect(cut).toBeInstanceOf(LLMRequestError);
      expect(cut.message).toMatch(/closed before the whole answer arrived \(HTTP 200\)/);
      const other = sdkErrorToLLMError(
        new OpenAI.OpenAIError('timeout must be an integer'),
        OpenAI,
        call,
      ) as LLMRequestError;
      expect(other.retryable).toBe(false);
      expect(other.message).toContain('timeout must be an integer');
    });

    it('returns a ctxkit error as it is', () => {
      const own = new StrategyError('dynamic-summarization', 'coding-agent', 'compose', new Error('x'));
      expect(sdkErrorToLLMError(own, OpenAI, call)).toBe(own);
    });
  });
});
