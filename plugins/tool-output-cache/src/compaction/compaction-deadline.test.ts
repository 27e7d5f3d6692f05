import { LLMTimeoutError } from '@ctxkit/core';
import { SilentLLMClient } from '@ctxkit/core/testing';
import { compactMessages } from './compact-messages';
import { resolveCompactionConfig } from './compaction-config';

describe('compactMessages', () => {
  describe('#timeoutMs', () => {
    it('fails with CTXKIT_LLM_TIMEOUT after compaction.timeoutMs when the model never answers', async () => {
      const config = resolveCompactionConfig({ timeoutMs: 150 });
      const started = performance.now();
      const error = await compactMessages([{ role: 'user', content: 'a long task' }], { llm: new SilentLLMClient(), callerModel: 'm', config }).catch((e: unknown) => e);
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
