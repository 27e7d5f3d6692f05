import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

import type { CliOutput } from '../cli-output';
import { bundledTranscripts } from '../lab/bundled-transcripts';
import { compareCommand, runComparison } from './compare-command';

const transcript = path.join(__dirname, '..', '__fixtures__', 'short-conversation.jsonl');

function capture(): CliOutput & { stdout: () => string; stderr: () => string } {
  let out = '';
  let err = '';
  return {
    out: (text) => void (out += text),
    err: (text) => void (err += text),
    color: false,
    interactive: false,
    stdout: () => out,
    stderr: () => err,
  };
}

describe('compareCommand', () => {
  const options = {
    transcript: [transcript],
    strategy: ['std-sliding-window-strategy'],
    llm: 'offline' as const,
    progress: false,
  };

  it('shows why calls were rejected (code and message) and exits 1', async () => {
    // 600 tokens leave less room than this conversation's system prompt takes: every call is rejected.
    const output = capture();
    expect(await compareCommand({ ...options, window: 600 }, output)).toBe(1);
    expect(output.stdout()).toMatch(/│ 22 +│\n.*│ rejected +│/);
    // the reason's continuation lines are indented under it
    expect(output.stdout().replace(/\n {6}/g, ' ')).toMatch(
      new RegExp(
        String.raw`short-conversation · std-sliding-window-strategy: 22 of 22 calls\n {4}CTXKIT_BUDGET_` +
          String.raw`EXCEEDED \(22\): std-sliding-window-strategy: system prompt \+ tool definitions need` +
          String.raw` \d+ tokens but the budget allows \d+`,
      ),
    );
    expect(output.stderr().replace(/\s+/g, ' ')).toContain(
      '22 call(s) rejected by std-sliding-window-strategy (reasons above): exit 1. Pass --allow-rejections',
    );
    for (const line of `${output.stdout()}${output.stderr()}`.split('\n'))
      expect(Array.from(line).length).toBeLessThanOrEqual(100);
    const wide = capture();
    await compareCommand({ ...options, window: 600, wide: true }, wide);
    expect(wide.stdout()).toContain('22 (22 rejected: CTXKIT_BUDGET_EXCEEDED)');
  });

  it('still reports rejections but exits 0 with allowRejections', async () => {
    const output = capture();
    expect(await compareCommand({ ...options, window: 600, allowRejections: true }, output)).toBe(0);
    expect(output.stdout()).toContain('CTXKIT_BUDGET_EXCEEDED (22)');
  });

  it("runs a strategy with the config keys given over the lab's, validated as a manifest's would be", async () => {
    // Three tau-bench conversations at 4,000 tokens: the history outgrows the window.
    const tau = { ...options, transcript: [bundledTranscripts()[0]!], limit: 3, window: 4000 };
    const json = (config: Record<string, unknown>) => ({ ...tau, config: { 'std-sliding-window-strategy': config } });
    const plain = await runComparison(tau, capture());
    const cutBack = await runComparison(json({ cutBackRatio: 0.5 }), capture());
    expect(cutBack.notes['std-sliding-window-strategy']).toContain('Run with {"cutBackRatio":0.5}');
    // Cut back in one go, the window holds its start: more of each payload repeats the previous one.
    expect(cutBack.summaries[0]!.repeatedPrefixShare!).toBeGreaterThan(plain.summaries[0]!.repeatedPrefixShare!);
    await expect(runComparison(json({ cutBackRatio: 2 }), capture())).rejects.toMatchObject({
      code: 'CTXKIT_CONFIG_INVALID',
    });
  });

  it('prices one-hour cache writes at their own price and reports the hit ratio over all calls', async () => {
    const tau = {
      ...options,
      transcript: [bundledTranscripts()[0]!],
      limit: 2,
      window: 4000,
      price: 'anthropic:claude-sonnet-4',
    };
    const [fiveMinutes] = (await runComparison(tau, capture())).summaries;
    const [oneHour] = (await runComparison({ ...tau, cacheTtl: '1h' }, capture())).summaries;
    const cost5m = fiveMinutes!.inputCostPerConversation!;
    const cost1h = oneHour!.inputCostPerConversation!;
    expect([cost5m.cacheTtl, cost1h.cacheTtl]).toEqual(['5m', '1h']);
    // The same tokens: only the written ones cost more, 6 against 3.75 per million.
    expect(cost1h.withoutCache).toBeCloseTo(cost5m.withoutCache);
    const hits = fiveMinutes!.cacheHitRatio!;
    expect(hits).toBeGreaterThan(0);
    expect(hits).toBeLessThan(fiveMinutes!.repeatedPrefixShareAllCalls!);
    const inputTokens = (cost5m.withoutCache * 1e6) / 3;
    expect(cost5m.withCache).toBeCloseTo((inputTokens * (hits * 0.3 + (1 - hits) * 3.75)) / 1e6, 6);
    expect(cost1h.withCache).toBeCloseTo((inputTokens * (hits * 0.3 + (1 - hits) * 6)) / 1e6, 6);
  });

  it('compares the standard strategies and leaves the example plugins out unless they are named', async () => {
    const short = { transcript: [transcript], llm: 'offline' as const, progress: false, window: 4096, limit: 1 };
    const output = capture();
    const all = await runComparison(short, output);
    const ids = all.summaries.map((row) => row.strategyId);
    expect(ids).toEqual(
      expect.arrayContaining([
        'std-sliding-window-strategy',
        'std-summarization-strategy',
        'std-entity-extraction-strategy',
        'std-tool-output-cache-strategy',
        'std-recall-strategy',
      ]),
    );
    expect(ids.every((id) => id.startsWith('std-'))).toBe(true);
    expect(output.stderr()).toContain(
      'Example plugins left out: example-pinned-messages-strategy (name one with --strategy to compare it).',
    );
    const named = capture();
    const chosen = await runComparison(
      { ...short, strategy: ['example-pinned-messages-strategy', 'std-sliding-window-strategy'] },
      named,
    );
    expect(chosen.summaries.map((row) => row.strategyId)).toEqual([
      'example-pinned-messages-strategy',
      'std-sliding-window-strategy',
    ]);
    expect(named.stderr()).not.toContain('left out');
  });

  it('shows progress on stderr, one line per strategy and transcript, when no bar can be drawn', async () => {
    const output = capture();
    await runComparison(
      {
        ...options,
        transcript: [transcript, transcript],
        window: 4096,
        limit: 1,
        strategy: ['std-sliding-window-strategy', 'std-recall-strategy'],
      },
      output,
    );
    expect(output.stderr().match(/^ {2}short-conversation · std-[a-z-]+: \d+ calls$/gm)).toHaveLength(4);
    expect(output.stdout()).toBe('');
  });

  it(`prints the comparison of the bundled data within 100 columns`, async () => {
    const output = capture();
    expect(await compareCommand({ llm: 'offline', progress: false, limit: 2 }, output)).toBe(0);
    const lines = output.stdout().split('\n');
    expect(lines.filter((line) => line.startsWith('│ std-'))).toHaveLength(10);
    for (const line of [...lines, ...output.stderr().split('\n')])
      expect(Array.from(line).length).toBeLessThanOrEqual(100);
  });

  it('exits 0 and lists no rejection when every call composed a valid payload', async () => {
    const output = capture();
    expect(await compareCommand({ ...options, window: 4096 }, output)).toBe(0);
    expect(output.stdout()).not.toContain('Rejected calls');
  });

  it('runs every configuration of a sweep grid, each as a run of its own, with its progress on stderr', async () => {
    const grid = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'sweep-')), 'grid.json');
    fs.writeFileSync(
      grid,
      JSON.stringify({ 'std-sliding-window-strategy': { cutBackRatio: [0.5, 0.7], keepFirstShare: [0, 0.4] } }),
    );
    const tau = {
      ...options,
      transcript: [bundledTranscripts()[0]!],
      limit: 3,
      window: 4000,
      price: 'anthropic:claude-sonnet-4',
    };
    const output = capture();
    const swept = await runComparison({ ...tau, grid }, output);
    const id = 'std-sliding-window-strategy';
    expect(swept.summaries.map((row) => row.label)).toEqual([
      id,
      `${id} {"cutBackRatio":0.5,"keepFirstShare":0}`,
      `${id} {"cutBackRatio":0.5,"keepFirstShare":0.4}`,
      `${id} {"cutBackRatio":0.7,"keepFirstShare":0}`,
      `${id} {"cutBackRatio":0.7,"keepFirstShare":0.4}`,
    ]);
    expect(swept.notes[`${id} {"cutBackRatio":0.5,"keepFirstShare":0.4}`]).toContain(
      'Run with {"cutBackRatio":0.5,"keepFirstShare":0.4}',
    );
    expect(
      output.stderr().match(/^ {2}\[\d\/5\] tau-bench-airline · std-sliding-window-strategy.*: \d+ calls$/gm),
    ).toHaveLength(5);
    // Each configuration's row is the run of that configuration alone: no state carried over from the one before.
    const alone = await runComparison(
      { ...tau, config: { [id]: { cutBackRatio: 0.5, keepFirstShare: 0.4 } } },
      capture(),
    );
    const row = swept.summaries[2]!;
    expect([row.factRetention, row.inputCostPerConversation, row.tokensPerCall]).toEqual([
      alone.summaries[0]!.factRetention,
      alone.summaries[0]!.inputCostPerConversation,
      alone.summaries[0]!.tokensPerCall,
    ]);
    expect(row.inputCostPerConversation!.withCache).not.toBeCloseTo(
      swept.summaries[3]!.inputCostPerConversation!.withCache,
      6,
    );
  });
});
