import type { LLMCompletion, LLMCompletionRequest } from '../contracts/llm-client';
import { LLMTimeoutError } from '../errors/llm-timeout-error';
import { DeadlineBoundLLMClient } from './deadline-bound-llm-client';

const NO_USAGE = { input_tokens: 0, output_tokens: 0, cache_creation_tokens: 0, cache_read_tokens: 0, total_tokens: 0 };

/** Records each call; answers after `delayMs`, or never when it is undefined (and ignores its signal). */
class WrappedModel extends DeadlineBoundLLMClient {
  readonly calls: Array<{ request: LLMCompletionRequest; timeoutMs: number }> = [];

  constructor(
    private readonly delayMs: number | undefined,
    timeoutMs?: number,
  ) {
    super('wrapped:model-a', 'model-a', timeoutMs);
  }

  protected completeOnce(request: LLMCompletionRequest, timeoutMs: number): Promise<LLMCompletion> {
    this.calls.push({ request, timeoutMs });
    if (this.delayMs === undefined) return new Promise<never>(() => undefined);
    return new Promise((resolve) =>
      setTimeout(
        () =>
          resolve({
            message: { role: 'assistant', content: 'ok' },
            text: 'ok',
            usage: NO_USAGE,
            model: request.model ?? '',
          }),
        this.delayMs,
      ),
    );
  }
}

describe('DeadlineBoundLLMClient', () => {
  it(
    "sends every request to the wrapped model, with the request's deadline, else the client's, else 60 " + 's',
    async () => {
      const client = new WrappedModel(0, 5_000);
      await client.complete({ messages: [{ role: 'user', content: 'hi' }], model: 'another-model', timeoutMs: 1_234 });
      await client.complete({ messages: [{ role: 'user', content: 'hi' }] });
      expect(client.calls.map((call) => [call.request.model, call.timeoutMs])).toEqual([
        ['model-a', 1_234],
        ['model-a', 5_000],
      ]);
      expect(client.calls[0]!.request.signal).toBeInstanceOf(AbortSignal);
      const defaulted = new WrappedModel(0);
      await defaulted.complete({ messages: [{ role: 'user', content: 'hi' }] });
      expect(defaulted.calls[0]!.timeoutMs).toBe(60_000);
      expect(defaulted).toMatchObject({ name: 'wrapped:model-a', defaultModel: 'model-a', offline: false });
    },
  );

  it(
    'ends a call the wrapped model never answers with LLMTimeoutError at the deadline, and aborts its ' + 'signal',
    async () => {
      const client = new WrappedModel(undefined, 30);
      const error = await client
        .complete({ messages: [{ role: 'user', content: 'hi' }] })
        .catch((caught: unknown) => caught);
      expect(LLMTimeoutError.isInstance(error)).toBe(true);
      expect((error as LLMTimeoutError).details).toMatchObject({
        client: 'wrapped:model-a',
        model: 'model-a',
        aborted: false,
      });
      expect(client.calls[0]!.request.signal?.aborted).toBe(true);
    },
  );

  it("ends the call at once when the caller's signal aborts, even though the wrapped model ignores it", async () => {
    const client = new WrappedModel(undefined, 60_000);
    const caller = new AbortController();
    const pending = client
      .complete({ messages: [{ role: 'user', content: 'hi' }], signal: caller.signal })
      .catch((caught: unknown) => caught);
    caller.abort();
    const error = await pending;
    expect(LLMTimeoutError.isInstance(error)).toBe(true);
    expect((error as LLMTimeoutError).details).toMatchObject({ aborted: true });
  });
});
