import { ScriptedLLMClient, SilentLLMClient } from '@ctxkit/core/testing';
import { compileStateSchema } from '../schema/state-schema';
import type { ExtractionRequest } from './state-extractor';
import { LLMExtractor } from './llm-extractor';

describe('LLMExtractor', () => {
  describe('#deadline', () => {
    const schema = compileStateSchema({ type: 'object', properties: { cabin: { type: 'string', enum: ['economy', 'business'] } }, additionalProperties: false }, 'test');
    const extraction: ExtractionRequest = {
      schema,
      state: {},
      input: { sourceMessageIndex: 0, userMessages: [{ index: 0, kind: 'user', text: 'business please' }], toolResults: [], lastAssistantText: null, context: [] },
    };

    it('reports a model that never answers as a failed call with CTXKIT_LLM_TIMEOUT, in about the deadline', async () => {
      const extractor = new LLMExtractor({ llm: new SilentLLMClient(), model: 'silent-model', instruction: null, maxOutputTokens: 64, timeoutMs: 150 });
      const started = performance.now();
      const outcome = await extractor.extract(extraction);
      const elapsed = performance.now() - started;
      expect(outcome).toMatchObject({ ok: false, reason: 'llm-error', attempts: 1 });
      expect(!outcome.ok && outcome.errors[0]).toMatch(/^CTXKIT_LLM_TIMEOUT: /);
      expect(elapsed).toBeGreaterThanOrEqual(140);
      expect(elapsed).toBeLessThan(1_000);
    });

    it('rejects an answer longer than the output limit allows, even when it is valid JSON', async () => {
      const huge = `{"cabin": "business", "note": "${'x'.repeat(64 * 16)}"}`;
      const llm = new ScriptedLLMClient([huge], { repeatLast: true });
      const extractor = new LLMExtractor({ llm, model: 'scripted-model', instruction: null, maxOutputTokens: 64, timeoutMs: 1_000 });
      const outcome = await extractor.extract(extraction);
      expect(outcome).toMatchObject({ ok: false, reason: 'invalid-answer', attempts: 2 });
      expect(!outcome.ok && outcome.errors[0]).toContain('extractionMaxOutputTokens');
      const withinLimit = new LLMExtractor({ llm: new ScriptedLLMClient(['{"cabin": "business"}']), model: 'scripted-model', instruction: null, maxOutputTokens: 64, timeoutMs: 1_000 });
      expect(await withinLimit.extract(extraction)).toMatchObject({ ok: true, state: { cabin: 'business' } });
    });

    it('gives the retry only what is left of the one deadline', async () => {
      const llm = new ScriptedLLMClient(['not json', { reply: '{"cabin":"business"}', delayMs: 5_000 }]);
      const extractor = new LLMExtractor({ llm, model: 'scripted-model', instruction: null, maxOutputTokens: 64, timeoutMs: 200 });
      const started = performance.now();
      const outcome = await extractor.extract(extraction);
      expect(performance.now() - started).toBeLessThan(1_000);
      expect(outcome).toMatchObject({ ok: false, reason: 'llm-error', attempts: 2 });
      expect(llm.requests.map((recorded) => recorded.hadSignal)).toEqual([true, true]);
      expect(llm.requests[1]!.timeoutMs!).toBeLessThanOrEqual(200);
    });
  });
});
