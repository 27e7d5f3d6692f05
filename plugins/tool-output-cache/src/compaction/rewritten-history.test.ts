import { ScriptedLLMClient } from '@ctxkit/core/testing';

import { longHistory, strategyOn, SUMMARY_REPLY } from '../test-support';

const SYSTEM = 'You are a coding agent.';

describe('a history rewritten under a compaction', () => {
  it('sets the compaction aside, with its warning, when a message it replaced is rewritten in place', async () => {
    const { strategy, named } = strategyOn(
      { maxContextTokens: 100_000, compaction: { auto: false, retainLastTurns: 1 } },
      { llm: new ScriptedLLMClient([SUMMARY_REPLY], { repeatLast: true }) },
    );
    const history = longHistory(6, 10);
    strategy.requestCompaction();
    expect((await strategy.checkCompaction('after-llm-call', history)).compacted).toBe(true);
    const summarized = await strategy.composePayload(SYSTEM, history, []);
    expect(JSON.stringify(summarized.messages)).toContain('ISSUE-7');

    // The first and last message objects stay; a message the compaction replaced says something else now.
    const rewritten = history.slice();
    rewritten[2] = { role: 'tool', tool_call_id: 'c0', content: 'a different output' };
    const payload = await strategy.composePayload(SYSTEM, rewritten, []);
    expect(JSON.stringify(payload.messages)).not.toContain('ISSUE-7');
    expect(named('strategy-warning').map((event) => String(event.message))).toContainEqual(
      expect.stringContaining('no longer continues the compacted conversation'),
    );
  });
});
