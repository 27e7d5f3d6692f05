import * as path from 'node:path';

import type { ChatMessage } from '@ctxkit/core';

import { bundledConversationsDir } from '../lab/bundled-transcripts';
import type { CallObservation } from '../lab/call-observation';
import { readTranscript } from '../lab/read-transcript';
import { readPayloadFacts } from './fact-presence';
import { goldActionFacts } from './gold-action-facts';
import { BASELINE_LABEL } from './quality-datasets';
import { qualityRow } from './quality-row';
import { runQuality } from './run-quality';
import { toolCallFacts } from './tool-call-facts';

describe("runQuality with config keys over a strategy's variants", () => {
  it('runs every variant of the strategy named with them, and only those', async () => {
    const slice = { dataset: ['tau-bench'], ceiling: [4000], limit: 6, strategy: ['sliding window', 'summarization'] };
    const shares = async (config?: Record<string, Record<string, unknown>>) =>
      Object.fromEntries(
        (await runQuality({ ...slice, config })).rows.map((row) => [row.strategy, [row.factsPresent, row.meanTokens]]),
      );
    const plain = await shares({ 'std-sliding-window-strategy': { cutBackRatio: 1, keepFirstShare: 0 } });
    const cut = await shares({ 'std-sliding-window-strategy': { cutBackRatio: 0.3, keepFirstShare: 0 } });
    // A window cut back to 30% of the room in one go sends fewer tokens per payload on average.
    expect(cut['sliding window']![1]).toBeLessThan(plain['sliding window']![1]!);
    expect(cut['summarization']).toEqual(plain['summarization']);
    await expect(runQuality({ ...slice, config: { 'no-such-strategy': {} } })).rejects.toMatchObject({
      code: 'CTXKIT_PLUGIN_NOT_FOUND',
    });
  }, 240_000);
});

describe('runQuality on a slice of tau-bench', () => {
  let result: Awaited<ReturnType<typeof runQuality>>;
  beforeAll(async () => {
    result = await runQuality({ dataset: ['tau-bench'], ceiling: [2000], limit: 4 });
  }, 120_000);

  it('measures every variant at the ceiling, with the sliding window as the baseline', () => {
    const labels = result.rows.map((row) => row.strategy);
    expect(labels).toEqual(
      expect.arrayContaining([BASELINE_LABEL, 'summarization', 'entity extraction', 'tool-output cache']),
    );
    for (const row of result.rows) {
      expect(row.dataset).toBe('tau-bench');
      expect(row.ceiling).toBe(2000);
    }
    const baseline = result.rows.find((row) => row.strategy === BASELINE_LABEL)!;
    expect(baseline.factsChecked).toBeGreaterThan(0);
    expect(baseline.ratioToSlidingWindow).toBe(1);
  });

  it('checks the same facts for every strategy and reports sane shares, ratios, tokens and utilisation', () => {
    const baseline = result.rows.find((row) => row.strategy === BASELINE_LABEL)!;
    for (const row of result.rows.filter((r) => !r.notMeasured)) {
      expect(row.factsChecked).toBe(baseline.factsChecked);
      expect(row.share).not.toBeNull();
      expect(row.share!).toBeGreaterThanOrEqual(0);
      expect(row.share!).toBeLessThanOrEqual(1);
      expect(row.share).toBeCloseTo(row.factsPresent / row.factsChecked, 10);
      if (baseline.share! > 0) expect(row.ratioToSlidingWindow).toBeCloseTo(row.share! / baseline.share!, 10);
      expect(row.calls).toBeGreaterThan(0);
      expect(row.meanTokens).toBeGreaterThan(0);
      expect(row.meanTokens).toBeLessThanOrEqual(2000);
      // At 2,000 tokens the ~1,600-token airline policy leaves little room: every strategy reduces.
      expect(row.reducedPayloads).toBeGreaterThan(0);
      expect(row.meanUtilisation!).toBeGreaterThan(0);
      expect(row.meanUtilisation!).toBeLessThanOrEqual(1.0001);
    }
  });

  it('says the data set is offline-measured', () => {
    expect(result.llmDescription).toContain('offline');
  });
});

describe('needed facts', () => {
  it('tau-bench: each gold-action argument is needed just before the first call of its function', async () => {
    const [record] = await readTranscript(path.join(bundledConversationsDir(), 'tau-bench-airline.jsonl'), {
      limit: 1,
    });
    const facts = goldActionFacts(record!);
    expect(facts.length).toBeGreaterThan(0);
    for (const fact of facts) {
      const fn = /\((\w+)\)/.exec(fact.question)![1]!;
      const message = record!.messages[fact.neededAt]!;
      expect(message.role).toBe('assistant');
      expect(message.role === 'assistant' && message.tool_calls?.some((call) => call.function.name === fn)).toBe(true);
      const earlier = record!.messages
        .slice(0, fact.neededAt)
        .some((m) => m.role === 'assistant' && m.tool_calls?.some((call) => call.function.name === fn));
      expect(earlier).toBe(false);
      expect(Math.max(...fact.evidence)).toBeLessThan(fact.neededAt);
    }
  });

  it('coding runs: paths and line numbers an earlier tool output showed, not what the task said', () => {
    const call = (id: string, args: Record<string, unknown>): ChatMessage => ({
      role: 'assistant',
      content: null,
      tool_calls: [{ id, type: 'function', function: { name: 'str_replace_editor', arguments: JSON.stringify(args) } }],
    });
    const messages: ChatMessage[] = [
      { role: 'system', content: 'You fix bugs.' },
      { role: 'user', content: 'Fix the crash in /repo/src/main.c' },
      call('a', { command: 'view', path: '/repo/src/main.c' }),
      {
        role: 'tool',
        tool_call_id: 'a',
        content: 'Here is /repo/src/main.c:\n    41\tint parse_tuple(ast_t* ast)\n    42\t{',
      },
      {
        role: 'assistant',
        content: null,
        tool_calls: [
          {
            id: 'b',
            type: 'function',
            function: { name: 'execute_bash', arguments: '{"command":"ls /repo/src/lib"}' },
          },
        ],
      },
      { role: 'tool', tool_call_id: 'b', content: 'tuple_helpers.c\nREADME' },
      call('c', { command: 'view', path: '/repo/src/main.c', view_range: [41, 42] }),
      { role: 'tool', tool_call_id: 'c', content: '    41\tint parse_tuple(ast_t* ast)' },
      call('d', { command: 'view', path: '/repo/src/lib/tuple_helpers.c' }),
    ];
    const facts = toolCallFacts({ id: 'openhands/test', messages });
    const answers = facts.map((fact) => [fact.neededAt, fact.answer]);
    expect(answers).toContainEqual([6, '41\tint parse_tuple(ast_t* ast)']);
    expect(answers).toContainEqual([6, '42\t{']);
    expect(answers).toContainEqual([8, 'tuple_helpers.c']);
    // The task message named /repo/src/main.c: not a fact learnt from a tool output.
    expect(answers.some(([, answer]) => String(answer).includes('main.c'))).toBe(false);
  });

  it('normalised facts ignore case, punctuation and spacing; verbatim facts do not', () => {
    const payload = readPayloadFacts([{ role: 'user', content: 'Ben:  She went to   the Museum, on 7 May, 2023!' }]);
    expect(payload.holds({ question: 'q', answer: 'the museum', neededAt: 1, match: 'normalised', evidence: [] })).toBe(
      true,
    );
    expect(payload.holds({ question: 'q', answer: '7 May 2023', neededAt: 1, match: 'normalised', evidence: [] })).toBe(
      true,
    );
    expect(payload.holds({ question: 'q', answer: '7 May 2023', neededAt: 1, match: 'verbatim', evidence: [] })).toBe(
      false,
    );
    expect(payload.holds({ question: 'q', answer: 'the zoo', neededAt: 1, match: 'normalised', evidence: [] })).toBe(
      false,
    );
  });
});

describe('qualityRow', () => {
  const observation = (extra: Partial<CallObservation>): CallObservation => ({
    recordId: 'r',
    call: 0,
    historyLength: 1,
    sentTokens: 900,
    everythingTokens: 1200,
    window: 1000,
    budget: 1000,
    available: 900,
    reduced: true,
    dropped: 1,
    summarized: 0,
    trimmed: 0,
    compacted: 0,
    problems: [],
    overBudget: false,
    milliseconds: 1,
    usageLevel: 'ok',
    sections: { system: 100, tools: 0, dynamic: 0, memory: 0, history: 800 },
    repeatedPrefixTokens: 0,
    fitsWhole: false,
    factsActive: 2,
    factsPresent: 2,
    factsRecoverable: 0,
    ...extra,
  });

  it('counts a thrown call as holding none of the facts it needed, and by its error code', () => {
    const row = qualityRow({ dataset: 'd', ceiling: 1000, strategy: 's', pluginId: 'p', conversations: 1 }, [
      observation({}),
      observation({ sentTokens: 450, reduced: false }),
      observation({
        sentTokens: 0,
        available: 0,
        reduced: false,
        factsPresent: 0,
        error: { code: 'CTXKIT_BUDGET_EXCEEDED', message: 'too big' },
      }),
    ]);
    expect(row.factsChecked).toBe(6);
    expect(row.factsPresent).toBe(4);
    expect(row.share).toBeCloseTo(4 / 6, 10);
    expect(row.errors).toEqual({ CTXKIT_BUDGET_EXCEEDED: 1 });
    expect(row.meanTokens).toBe(675);
    expect(row.reducedPayloads).toBe(1);
    expect(row.meanUtilisation).toBeCloseTo(1, 10);
  });
});
