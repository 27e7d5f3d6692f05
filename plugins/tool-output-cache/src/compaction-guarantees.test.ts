import { type ChatMessage, ErrorCodes } from '@ctxkit/core';
import { ScriptedLLMClient } from '@ctxkit/core/testing';

import { exchange, longHistory, output, strategyOn } from './test-support';

/**
 * What the tool-output cache's compaction promises whatever its model answers and however often the
 * host asks: driven through the strategy's public methods, as the kernel drives them.
 */

const SYSTEM = 'You are a coding agent.';
const usage = (total: number) => ({
  input_tokens: total,
  output_tokens: 0,
  cache_creation_tokens: 0,
  cache_read_tokens: 0,
  total_tokens: total,
});
const SUMMARY =
  '<retain>ids: ISSUE-7, file src/main.c</retain>\n<summary>The agent read the build logs and is fixing ' +
  'src/main.c.</summary>';
/** 8,000 tokens, threshold 0.8: compaction starts at 6,400. */
const CONFIG = { model: 'gpt-4o', maxContextTokens: 8000, compaction: { thresholdRatio: 0.8 } } as const;

describe('compaction guarantees', () => {
  describe('no re-compaction when nothing new arrived after the last boundary', () => {
    it(
      'neither a checkpoint with the same usage again nor a payload compacts the same history twice; growth past ' +
        'retryAfterTokens does',
      async () => {
        const llm = new ScriptedLLMClient([SUMMARY], { repeatLast: true });
        const { strategy } = strategyOn(CONFIG, { llm });
        const history = longHistory(4, 10);
        const first = await strategy.checkCompaction('after-llm-call', history, usage(6500));
        expect(first.compacted).toBe(true);
        expect(llm.callCount).toBe(1);

        // Nothing new after the compaction's boundary: the last request's usage, reported again at
        // every checkpoint (a kernel passes the last usage after tools and before it returns), and
        // payloads of the full or the adopted history.
        for (const checkpoint of ['after-tools', 'before-return', 'after-llm-call'] as const) {
          expect((await strategy.checkCompaction(checkpoint, history, usage(6500))).compacted).toBe(false);
          expect((await strategy.checkCompaction(checkpoint, first.messages!, usage(6500))).compacted).toBe(false);
        }
        await strategy.composePayload(SYSTEM, history, []);
        await strategy.composePayload(SYSTEM, first.messages!, []);
        expect(llm.callCount).toBe(1);
        expect((await strategy.epochs()).filter((epoch) => epoch.kind === 'compaction')).toHaveLength(1);

        // Once the history has grown by compaction.retryAfterTokens (1,000) past the boundary, it compacts again.
        const grown: ChatMessage[] = [
          ...history,
          ...exchange('c9', output('out9', 120)),
          { role: 'assistant', content: 'Read the new log.' },
          { role: 'user', content: 'Go on again.' },
        ];
        expect((await strategy.checkCompaction('after-llm-call', grown, usage(6500))).compacted).toBe(true);
        expect(llm.callCount).toBe(2);
      },
    );
  });

  describe('an acknowledgement-only or empty summary is refused', () => {
    it.each([
      '<summary>OK</summary>',
      '<retain></retain><summary>Understood.</summary>',
      '<retain>ISSUE-7</retain><summary>Sure, here is the summary:</summary>',
      '<summary>Error: 503 Service Unavailable</summary>',
      '<summary> </summary>',
      '',
    ])('a compaction answered %j changes nothing and says why', async (reply) => {
      const llm = new ScriptedLLMClient([reply], { repeatLast: true });
      const { strategy, named } = strategyOn(CONFIG, { llm });
      const history = longHistory(4, 10);
      const result = await strategy.checkCompaction('after-llm-call', history, usage(6500));
      expect(result.compacted).toBe(false);
      expect(llm.callCount).toBe(1);
      expect(named('compaction-error').map((payload) => (payload.error as { code: string }).code)).toEqual([
        ErrorCodes.LLM_RESPONSE_INVALID,
      ]);
      const payload = await strategy.composePayload(SYSTEM, history, []);
      expect(payload.messages.slice(1).map((message) => message.content)).toEqual(
        history.map((message) => message.content),
      );
      expect(payload.stats.extra).toMatchObject({
        compaction: { count: 0, lastError: { code: ErrorCodes.LLM_RESPONSE_INVALID } },
      });
      expect(await strategy.epochs()).toEqual([]);
    });
  });
});
