import * as path from 'node:path';
import type { CliOutput } from '../cli-output';
import { compareCommand } from './compare-command';

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

  it('exits 0 and lists no rejection when every call composed a valid payload', async () => {
    const output = capture();
    expect(await compareCommand({ ...options, window: 4096 }, output)).toBe(0);
    expect(output.stdout()).not.toContain('Rejected calls');
  });
});
