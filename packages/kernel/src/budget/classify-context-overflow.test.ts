import { ContextOverflowError, ErrorCodes, LLMRequestError, LLMTimeoutError } from '@ctxkit/core';

import { classifyContextOverflow } from './classify-context-overflow';

/**
 * An LLMRequestError as the clients throw it for an HTTP refusal: the provider's reason in the message, its body as an
 * excerpt.
 */
const refusal = (status: number, reason: string, body: unknown = { error: { message: reason } }) =>
  new LLMRequestError(
    `HTTP ${status}: ${reason}`,
    { client: 'openai-compatible:gpt-4o', model: 'gpt-4o', status, body: JSON.stringify(body) },
    { retryable: false },
  );

describe('classifyContextOverflow', () => {
  it.each([
    [
      'OpenAI',
      "This model's maximum context length is 8192 tokens. However, your messages resulted in 9,013 tokens. Please " +
        'reduce the length of the messages.',
      8192,
      9013,
    ],
    [
      'OpenAI, completion counted',
      "This model's maximum context length is 4097 tokens. However, you requested 5000 tokens (3976 in the " +
        'messages, 1024 in the completion).',
      4097,
      3976,
    ],
    ['Anthropic', 'prompt is too long: 210312 tokens > 200000 maximum', 200000, 210312],
    [
      'Gemini',
      'The input token count (1200000) exceeds the maximum number of tokens allowed (1048576).',
      1048576,
      1200000,
    ],
    ['llama.cpp server', 'the request exceeds the available context size, try increasing it', undefined, undefined],
    ['Ollama', 'input length exceeds the context length', undefined, undefined],
  ])('reads the %s wording, with its numbers when it gives them', (_provider, reason, limit, actual) => {
    const overflow = classifyContextOverflow(refusal(400, reason), 'fallback-name');
    expect(overflow).toBeInstanceOf(ContextOverflowError);
    expect(overflow).toMatchObject({
      code: ErrorCodes.CONTEXT_OVERFLOW,
      limit,
      actual,
      status: 400,
      client: 'openai-compatible:gpt-4o',
      providerMessage: reason,
      retried: false,
    });
    expect(overflow!.message).toContain(reason);
    expect(overflow!.cause).toBeInstanceOf(LLMRequestError);
  });

  it("finds OpenAI's code in the body when the message is generic, and llama.cpp's numbers in its body", () => {
    expect(
      classifyContextOverflow(
        refusal(400, 'Bad request', { error: { code: 'context_length_exceeded', message: 'Bad request' } }),
        'x',
      ),
    ).toBeInstanceOf(ContextOverflowError);
    const llama = classifyContextOverflow(
      refusal(400, 'the request exceeds the available context size, try increasing it', {
        error: { code: 400, type: 'exceed_context_size_error', n_prompt_tokens: 5120, n_ctx: 4096 },
      }),
      'x',
    );
    expect(llama).toMatchObject({ limit: 4096, actual: 5120 });
  });

  it('leaves every other failure alone', () => {
    expect(classifyContextOverflow(refusal(400, 'The model `gpt-5o` does not exist'), 'x')).toBeUndefined();
    expect(classifyContextOverflow(refusal(429, 'Rate limit reached for requests'), 'x')).toBeUndefined();
    expect(classifyContextOverflow(new LLMTimeoutError({ client: 'x', timeoutMs: 10 }), 'x')).toBeUndefined();
    expect(classifyContextOverflow(new Error('prompt is too long: 2 tokens > 1 maximum'), 'x')).toBeUndefined();
    expect(classifyContextOverflow(undefined, 'x')).toBeUndefined();
  });

  it('passes a ContextOverflowError through and names the client when the error does not', () => {
    const typed = new ContextOverflowError({ client: 'anthropic:claude', providerMessage: 'prompt is too long' });
    expect(classifyContextOverflow(typed, 'x')).toBe(typed);
    const bare = new LLMRequestError(
      'prompt is too long: 12 tokens > 10 maximum',
      { client: '' },
      { retryable: false },
    );
    expect(classifyContextOverflow(bare, 'anthropic:claude')).toMatchObject({
      client: 'anthropic:claude',
      limit: 10,
      actual: 12,
    });
  });
});
