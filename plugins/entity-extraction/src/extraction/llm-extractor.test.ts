import { ScriptedLLMClient, SilentLLMClient } from '@ctxkit/core/testing';

import { compileStateSchema } from '../schema/state-schema';
import { LLMExtractor } from './llm-extractor';
import type { ExtractionRequest } from './state-extractor';

describe('LLMExtractor', () => {
  describe('#deadline', () => {
    const schema = compileStateSchema(
      {
        type: 'object',
        properties: { cabin: { type: 'string', enum: ['economy', 'business'] } },
        additionalProperties: false,
      },
      'test',
    );
    const extraction: ExtractionRequest = {
      schema,
      state: {},
      input: {
        sourceMessageIndex: 0,
        userMessages: [{ index: 0, kind: 'user', text: 'business please' }],
        toolResults: [],
        lastAssistantText: null,
        context: [],
      },
    };

    it(
      'reports a model that never answers as a failed call with CTXKIT_LLM_TIMEOUT, in about the ' + 'deadline',
      async () => {
        const extractor = new LLMExtractor({
          llm: new SilentLLMClient(),
          model: 'silent-model',
          instruction: null,
          maxOutputTokens: 64,
          timeoutMs: 150,
        });
        const started = performance.now();
        const outcome = await extractor.extract(extraction);
        const elapsed = performance.now() - started;
        expect(outcome).toMatchObject({ ok: false, reason: 'llm-error', attempts: 1 });
        expect(!outcome.ok && outcome.errors[0]).toMatch(/^CTXKIT_LLM_TIMEOUT: /);
        expect(elapsed).toBeGreaterThanOrEqual(140);
        expect(elapsed).toBeLessThan(1_000);
      },
    );

    it('rejects an answer longer than the output limit allows, even when it is valid JSON', async () => {
      const huge = `{"cabin": "business", "note": "${'x'.repeat(64 * 16)}"}`;
      const llm = new ScriptedLLMClient([huge], { repeatLast: true });
      const extractor = new LLMExtractor({
        llm,
        model: 'scripted-model',
        instruction: null,
        maxOutputTokens: 64,
        timeoutMs: 1_000,
      });
      const outcome = await extractor.extract(extraction);
      expect(outcome).toMatchObject({ ok: false, reason: 'invalid-answer', attempts: 2 });
      expect(!outcome.ok && outcome.errors[0]).toContain('extractionMaxOutputTokens');
      const withinLimit = new LLMExtractor({
        llm: new ScriptedLLMClient(['{"cabin": "business"}']),
        model: 'scripted-model',
        instruction: null,
        maxOutputTokens: 64,
        timeoutMs: 1_000,
      });
      expect(await withinLimit.extract(extraction)).toMatchObject({ ok: true, state: { cabin: 'business' } });
    });

    it('gives the retry only what is left of the one deadline', async () => {
      const llm = new ScriptedLLMClient(['not json', { reply: '{"cabin":"business"}', delayMs: 5_000 }]);
      const extractor = new LLMExtractor({
        llm,
        model: 'scripted-model',
        instruction: null,
        maxOutputTokens: 64,
        timeoutMs: 200,
      });
      const started = performance.now();
      const outcome = await extractor.extract(extraction);
      expect(performance.now() - started).toBeLessThan(1_000);
      expect(outcome).toMatchObject({ ok: false, reason: 'llm-error', attempts: 2 });
      expect(llm.requests.map((recorded) => recorded.hadSignal)).toEqual([true, true]);
      expect(llm.requests[1]!.timeoutMs!).toBeLessThanOrEqual(200);
    });
  });

  describe('#continuation', () => {
    const schema = compileStateSchema(
      {
        type: 'object',
        properties: { cabin: { type: 'string', enum: ['economy', 'business'] } },
        additionalProperties: false,
      },
      'test',
    );
    const extraction: ExtractionRequest = {
      schema,
      state: {},
      input: {
        sourceMessageIndex: 0,
        userMessages: [{ index: 0, kind: 'user', text: 'business please' }],
        toolResults: [],
        lastAssistantText: null,
        context: [],
      },
    };

    it(
      "with the conversation's cache key, carries the instruction and the data as one user message continuing its " +
        'last request, and the retry after it',
      async () => {
        const llm = new ScriptedLLMClient(['not json', '{"cabin":"business"}']);
        const extractor = new LLMExtractor({
          llm,
          model: 'scripted-model',
          instruction: null,
          maxOutputTokens: 64,
          timeoutMs: 1_000,
        });
        expect(await extractor.extract({ ...extraction, cacheKey: 'airline:s-1' })).toMatchObject({
          ok: true,
          state: { cabin: 'business' },
        });
        const [first, retry] = llm.requests;
        expect(first!.cacheKey).toBe('airline:s-1');
        expect(first!.continuation).toHaveLength(1);
        expect(first!.continuation![0]!.role).toBe('user');
        const text = String(first!.continuation![0]!.content);
        expect(text).toContain('<extraction_instructions>\nYou keep the structured state');
        expect(text).toContain('<new_user_message index="0">\nbusiness please\n</new_user_message>');
        // The request's own messages stay whole for a client that continues no request.
        expect(first!.messages.map((message) => message.role)).toEqual(['system', 'user']);
        expect(retry!.continuation!.map((message) => message.role)).toEqual(['user', 'assistant', 'user']);
        expect(retry!.continuation![1]!.content).toBe('not json');
      },
    );

    it('without a cache key, sends its own messages only', async () => {
      const llm = new ScriptedLLMClient(['{"cabin":"business"}']);
      await new LLMExtractor({
        llm,
        model: 'scripted-model',
        instruction: null,
        maxOutputTokens: 64,
        timeoutMs: 1_000,
      }).extract(extraction);
      expect(llm.requests[0]).not.toHaveProperty('continuation');
      expect(llm.requests[0]).not.toHaveProperty('cacheKey');
    });
  });
});
