import { LLMTimeoutError } from '@ctxkit/core';
import { SilentLLMClient } from '@ctxkit/core/testing';

import { resolveToolOutputCacheStrategyConfig } from '../tool-output-cache-strategy-config';
import { compactMessages } from './compact-messages';

describe('compactMessages', () => {
  describe('#timeoutMs', () => {
    it('fails with CTXKIT_LLM_TIMEOUT after compaction.timeoutMs when the model never answers', async () => {
      const config = resolveToolOutputCacheStrategyConfig({ compaction: { timeoutMs: 150 } }).compaction;
      const started = performance.now();
      const error = await compactMessages([{ role: 'user', content: 'a long task' }], {
        llm: new SilentLLMClient(),
        callerModel: 'm',
        config,
      }).catch((e: unknown) => e);
      const elapsed = performance.now() - started;
      expect(LLMTimeoutError.isInstance(error)).toBe(true);
      expect(elapsed).toBeGreaterThanOrEqual(140);
      expect(elapsed).toBeLessThan(1_000);
    });

    it('defaults to two minutes', () => {
      expect(resolveToolOutputCacheStrategyConfig(undefined).compaction.timeoutMs).toBe(120_000);
    });
  });
});
