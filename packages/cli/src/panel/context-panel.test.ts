import type { PayloadStats } from '@ctxkit/core';

import { renderContextPanel } from './context-panel';

function stats(used: number, level: PayloadStats['usageLevel']): PayloadStats {
  return {
    strategyId: 'std-sliding-window-strategy',
    model: 'gpt-4o',
    input_tokens: 9000,
    output_tokens: used,
    compress_ratio: used / 9000,
    budget: {
      contextWindow: 8192,
      maxContextTokens: 8192,
      reserveOutputTokens: 1024,
      safetyMarginTokens: 819,
      available: 6349,
      used,
      remaining: 6349 - used,
    },
    sections: { system: 2014, tools: 1487, dynamic: 0, memory: 0, history: used - 3501 },
    messages: { input: 30, output: 12 },
    reductions: [],
    dropped: 0,
    trimmed: 0,
    summarized: 0,
    compacted: 0,
    usageLevel: level,
    counter: {
      model: 'gpt-4o',
      encoding: 'o200k_base',
      uses_tiktoken: true,
      strategy: 'tiktoken',
      backend: 'gpt-tokenizer',
    },
  };
}

describe('renderContextPanel', () => {
  const base = { messages: 12, lastToolOutputTokens: 205, compactions: 0, truncations: 0, warnings: 0 };

  it('shows used / window with a percentage and a bar', () => {
    const panel = renderContextPanel({ ...base, stats: stats(4218, 'ok') });
    expect(panel).toContain('4.2K / 8K  (51%)');
    expect(panel).toContain('█');
    expect(panel).not.toMatch(/\u001b\[/);
    expect(panel.split('\n')[0]).toMatch(/^┌─ Context ─+┐$/);
  });

  it('shows the per-section breakdown and the counts in debug mode', () => {
    const panel = renderContextPanel({ ...base, stats: stats(4218, 'ok') }, { debug: true });
    for (const label of ['system:', 'tools def:', 'dynamic:', 'memory:', 'history:', 'last out:', 'remaining:'])
      expect(panel).toContain(label);
    expect(panel).toContain('4,218 / 8,192 tokens (51%)');
    expect(panel).toContain('2,014');
    expect(panel).toContain('msgs: 12  compact: 0');
    expect(panel).toContain('truncated: 0  warnings: 0');
  });

  it.each([
    ['ok', '\u001b[32m'],
    ['warn', '\u001b[33m'],
    ['compact', '\u001b[31m'],
    ['critical', '\u001b[7m'],
  ] as const)('colours the %s level', (level, code) => {
    expect(renderContextPanel({ ...base, stats: stats(5000, level) }, { color: true })).toContain(code);
  });

  it('keeps every line of the box the same width', () => {
    const lines = renderContextPanel({ ...base, stats: stats(4218, 'ok') }, { debug: true }).split('\n');
    const widths = new Set(lines.map((line) => [...line].length));
    expect(widths.size).toBe(1);
  });
});
