import { type ChatMessage, type ITokenCounter, type LLMPayload, type ToolMessage } from '@ctxkit/core';
import { findPayloadProblems } from '@ctxkit/core/strategy-kit';
import { ScriptedLLMClient } from '@ctxkit/core/testing';

import { exchange, output, strategyOn, SUMMARY_REPLY } from './test-support';
import type { ToolOutputCacheStrategyConfig } from './tool-output-cache-strategy-config';
import { isMicroCompacted, isTrimmed } from './view/lighter-form';

const SYSTEM = 'You are a coding agent.';

/** The tool call ids whose outputs a payload shows as placeholders. */
function replaced(payload: LLMPayload): Set<string> {
  return new Set(
    payload.messages
      .filter(
        (message): message is ToolMessage =>
          message.role === 'tool' && (isTrimmed(message) || isMicroCompacted(message)),
      )
      .map((message) => message.tool_call_id),
  );
}

interface Change {
  turn: number;
  /** Tool call ids replaced for the first time by this payload. */
  added: string[];
  /** Tokens the payload saved on them: each output whole less what it shows now. */
  reclaimed: number;
}

/** A conversation after `turns` turns of one exchange (outputs of 120 to 330 tokens or so) and one user message. */
function grownHistory(turns: number): ChatMessage[] {
  const history: ChatMessage[] = [{ role: 'user', content: 'Fix the failing build.' }];
  for (let turn = 0; turn < turns; turn++)
    history.push(...exchange(`c${turn}`, output(`run${turn}`, 8 + ((turn * 7) % 15))), {
      role: 'user',
      content: `Turn ${turn}: go on.`,
    });
  return history;
}

/**
 * Tokens of the tool outputs a payload shows whole (none is in the current turn: each history ends with a user
 * message).
 */
function shownToolTokens(payload: LLMPayload, counter: ITokenCounter): number {
  let total = 0;
  for (const message of payload.messages)
    if (message.role === 'tool' && !isTrimmed(message) && !isMicroCompacted(message))
      total += counter.countMessage(message);
  return total;
}

/**
 * Composes after each turn of {@link grownHistory}, as an agent would; returns every payload's change
 * to the set of replaced outputs, and the tokens of the outputs each shows whole.
 */
async function replay(
  config: ToolOutputCacheStrategyConfig,
  turns: number,
): Promise<{ changes: Change[]; payloads: LLMPayload[]; shownOutputTokens: number[] }> {
  const { strategy, context } = strategyOn(config);
  const full = grownHistory(turns);
  const payloads: LLMPayload[] = [];
  const changes: Change[] = [];
  const shownOutputTokens: number[] = [];
  let before = new Set<string>();
  for (let turn = 0; turn < turns; turn++) {
    const history = full.slice(0, 1 + 3 * (turn + 1));
    const payload = await strategy.composePayload(SYSTEM, history, []);
    await strategy.whenIdle();
    payloads.push(payload);
    shownOutputTokens.push(shownToolTokens(payload, context.counter));
    const now = replaced(payload);
    // Older outputs never come back once replaced: the payload only changes further on.
    for (const id of before) expect(now.has(id)).toBe(true);
    const added = [...now].filter((id) => !before.has(id));
    if (added.length > 0) {
      let reclaimed = 0;
      for (const id of added) {
        const original = history.find(
          (message): message is ToolMessage => message.role === 'tool' && message.tool_call_id === id,
        )!;
        const sent = payload.messages.find(
          (message): message is ToolMessage => message.role === 'tool' && message.tool_call_id === id,
        )!;
        reclaimed += context.counter.countMessage(original) - context.counter.countMessage(sent);
      }
      changes.push({ turn, added, reclaimed });
    }
    before = now;
  }
  return { changes, payloads, shownOutputTokens };
}

describe('minReclaimTokens', () => {
  const budget = {
    maxContextTokens: 60_000,
    toolOutputCache: { contextBudgetTokens: 1500 },
    microCompact: { enabled: false },
    compaction: { enabled: false },
  } satisfies ToolOutputCacheStrategyConfig;

  it(
    'replaces older outputs for the tool output budget only in steps that reclaim at least that many ' + 'tokens',
    async () => {
      const { changes, payloads, shownOutputTokens } = await replay({ ...budget, minReclaimTokens: 1000 }, 40);
      expect(changes.length).toBeGreaterThan(2);
      for (const change of changes) expect(change.reclaimed).toBeGreaterThanOrEqual(1000);
      // Meanwhile the outputs shown stay over their budget by less than the minimum (plus the few
      // tokens of the placeholders the waiting outputs will become).
      expect(Math.max(...shownOutputTokens)).toBeGreaterThan(1500);
      expect(Math.max(...shownOutputTokens)).toBeLessThan(1500 + 1000 + 100);
      for (const payload of payloads) expect(findPayloadProblems(payload.messages)).toEqual([]);
    },
  );

  it(
    'with 0, replaces an output at nearly every turn once the budget is reached (what the minimum ' + 'saves)',
    async () => {
      const eager = await replay({ ...budget, minReclaimTokens: 0 }, 40);
      const stepped = await replay({ ...budget, minReclaimTokens: 1000 }, 40);
      expect(eager.changes.length).toBeGreaterThan(20);
      expect(stepped.changes.length).toBeLessThan(eager.changes.length / 3);
      // Each eager step reclaims one output or two: less than the minimum.
      expect(eager.changes.every((change) => change.reclaimed < 1000)).toBe(true);
      expect(Math.max(...eager.shownOutputTokens)).toBeLessThanOrEqual(1500);
    },
  );

  it(
    'trims down to the budget at once on a payload with no earlier one (a new instance on a long ' + 'history)',
    async () => {
      const { strategy, context } = strategyOn({ ...budget, minReclaimTokens: 1000 });
      const payload = await strategy.composePayload(SYSTEM, grownHistory(40), []);
      expect(replaced(payload).size).toBeGreaterThan(10);
      expect(shownToolTokens(payload, context.counter)).toBeLessThanOrEqual(1500);
    },
  );

  it('defaults to 2000 tokens', async () => {
    const byDefault = await replay(budget, 40);
    expect(byDefault.changes.length).toBeGreaterThan(1);
    for (const change of byDefault.changes) expect(change.reclaimed).toBeGreaterThanOrEqual(2000);
  });

  it(
    'compacts older results with micro-compact `always` only in steps that reclaim at least that many ' + 'tokens',
    async () => {
      const always = {
        maxContextTokens: 60_000,
        microCompact: { when: 'always', keepRecent: 2, minContentLength: 10 },
        compaction: { enabled: false },
      } satisfies ToolOutputCacheStrategyConfig;
      const stepped = await replay({ ...always, minReclaimTokens: 800 }, 30);
      const eager = await replay({ ...always, minReclaimTokens: 0 }, 30);
      expect(eager.changes.length).toBeGreaterThan(20);
      expect(stepped.changes.length).toBeGreaterThan(2);
      expect(stepped.changes.length).toBeLessThan(eager.changes.length / 2);
      for (const change of stepped.changes) expect(change.reclaimed).toBeGreaterThanOrEqual(800);
    },
  );

  it('does not wait when the payload must make room: under pressure older outputs give way at once', async () => {
    const { strategy } = strategyOn({
      maxContextTokens: 3000,
      minReclaimTokens: 50_000,
      toolOutputCache: { contextBudgetTokens: 500 },
      compaction: { enabled: false },
    });
    const history: ChatMessage[] = [{ role: 'user', content: 'Fix the failing build.' }];
    let underPressure = 0;
    for (let turn = 0; turn < 30; turn++) {
      history.push(...exchange(`c${turn}`, output(`run${turn}`, 15)), {
        role: 'user',
        content: `Turn ${turn}: go on.`,
      });
      const payload = await strategy.composePayload(SYSTEM, history.slice(), []);
      expect(payload.stats.budget.used).toBeLessThanOrEqual(payload.stats.budget.available);
      expect(findPayloadProblems(payload.messages)).toEqual([]);
      if ((payload.stats.extra?.toolOutputCache as { underPressure?: boolean } | undefined)?.underPressure) {
        underPressure++;
        // The history still reaches back past the outputs it replaced: they gave way instead of being dropped.
        expect(replaced(payload).size).toBeGreaterThan(0);
      }
    }
    expect(underPressure).toBeGreaterThan(10);
  });

  it('holds the micro-compact boundary from call to call while a compaction is in effect', async () => {
    const { strategy } = strategyOn(
      {
        maxContextTokens: 100_000,
        minReclaimTokens: 100_000,
        microCompact: { when: 'always', keepRecent: 1 },
        compaction: { auto: false, retainLastTurns: 2 },
      },
      { llm: new ScriptedLLMClient([SUMMARY_REPLY], { repeatLast: true }) },
    );
    const history = grownHistory(6);
    strategy.requestCompaction();
    expect((await strategy.checkCompaction('after-llm-call', history)).compacted).toBe(true);
    const first = replaced(await strategy.composePayload(SYSTEM, history, []));
    for (let turn = 6; turn < 9; turn++) {
      history.push(...exchange(`c${turn}`, output(`run${turn}`, 8)), { role: 'user', content: `Turn ${turn}: go on.` });
      // Each call lays the compaction out afresh; the boundary moves only once it reclaims enough.
      expect(replaced(await strategy.composePayload(SYSTEM, history, []))).toEqual(first);
    }
  });
});
