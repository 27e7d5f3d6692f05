import * as path from 'node:path';
import type { CliOutput } from '../cli-output';
import { bundledTranscripts } from '../lab/bundled-transcripts';
import { compareCommand, runComparison } from './compare-command';

const transcript = path.join(__dirname, '..', '__fixtures__', 'short-conversation.jsonl');

function capture(): CliOutput & { stdout: () => string; stderr: () => string } {
  let out = '';
  let err = '';
  return { out: (text) => void (out += text), err: (text) => void (err += text), color: false, interactive: false, stdout: () => out, stderr: () => err };
}

describe('compareCommand', () => {
  const options = { transcript: [transcript], strategy: ['std-sliding-window-strategy'], llm: 'offline' as const, progress: false };

  it('shows why calls were rejected (code and message) and exits 1', async () => {
    // 600 tokens leave less room than this conversation's system prompt takes: every call is rejected.
    const output = capture();
    expect(await compareCommand({ ...options, window: 600 }, output)).toBe(1);
    expect(output.stdout()).toContain('22 (22 rejected: CTXKIT_BUDGET_EXCEEDED)');
    expect(output.stdout()).toMatch(/short-conversation · std-sliding-window-strategy: 22 of 22 calls\n {4}CTXKIT_BUDGET_EXCEEDED \(22\): std-sliding-window-strategy: system prompt \+ tool definitions need \d+ tokens but the budget allows \d+/);
    expect(output.stderr()).toContain('22 call(s) rejected by std-sliding-window-strategy (reasons above): exit 1. Pass --allow-rejections');
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
    await expect(runComparison(json({ cutBackRatio: 2 }), capture())).rejects.toMatchObject({ code: 'CTXKIT_CONFIG_INVALID' });
  });

  it('exits 0 and lists no rejection when every call composed a valid payload', async () => {
    const output = capture();
    expect(await compareCommand({ ...options, window: 4096 }, output)).toBe(0);
    expect(output.stdout()).not.toContain('Rejected calls');
  });
});
