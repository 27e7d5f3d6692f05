import { LLMTimeoutError, type LLMClient, type LLMCompletion, type LLMCompletionRequest } from '@ctxkit/core';
import { compactMessages } from './compact-messages';
import { resolveCompactionConfig } from './compaction-config';

/** A dead connection: `complete()` never settles and ignores its signal. */
class SilentClient implements LLMClient {
  readonly name = 'silent';
  readonly defaultModel = 'silent-model';
  readonly offline = false;
  readonly signals: Array<AbortSignal | undefined> = [];
  complete(request: LLMCompletionRequest): Promise<LLMCompletion> {
    this.signals.push(request.signal);
    return new Promise<LLMCompletion>(() => undefined);
  }
}

describe('compactMessages', () => {
  describe('#timeoutMs', () => {
    it('fails with CTXKIT_LLM_TIMEOUT after compaction.timeoutMs when the model never answers', async () => {
      const config = resolveCompactionConfig({ timeoutMs: 150 });
      const started = performance.now();
      const error = await compactMessages([{ role: 'user', content: 'a long task' }], { llm: new SilentClient(), callerModel: 'm', config }).catch((e: unknown) => e);
      const elapsed = performance.now() - started;
      expect(LLMTimeoutError.isInstance(error)).toBe(true);
      expect(elapsed).toBeGreaterThanOrEqual(140);
      expect(elapsed).toBeLessThan(1_000);
    });

    it('defaults to two minutes', () => {
      expect(resolveCompactionConfig(undefined).timeoutMs).toBe(120_000);
    });
  });
});
