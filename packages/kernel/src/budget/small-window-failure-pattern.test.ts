import {
  type AssistantMessage,
  BudgetExceededError,
  type ChatMessage,
  ErrorCodes,
  type ToolMessage,
} from '@ctxkit/core';
import { collapsedToolResult, findPayloadProblems } from '@ctxkit/core/strategy-kit';

import {
  buildBudgetAgent,
  NaiveManager,
  sizedText,
  testCounter,
  testTool,
  toolCall,
} from '../__fixtures__/budget-test-agent';
import { preSendCheck } from './pre-send-check';

/** A Go file of `lines` lines with top-level functions (what split reading, mode B, outlines). */
function goFile(lines: number): string {
  const out = ['package main', '', 'import (', '\t"fmt"', '\t"net/http"', ')', ''];
  let fn = 0;
  while (out.length < lines - 1) {
    out.push(`func handler${fn}(w http.ResponseWriter, r *http.Request) {`);
    for (let i = 0; i < 12 && out.length < lines - 2; i++)
      out.push(`\tfmt.Fprintf(w, "step ${fn}.${i}: %s", r.URL.Path) // keep the request path visible`);
    out.push('}');
    fn++;
  }
  out.push('// end');
  return out.join('\n');
}

/** 30 KB of build output, its verdict at the end. */
const buildLog = (() => {
  const lines: string[] = ['$ make test'];
  for (let i = 0; lines.join('\n').length < 30 * 1024 - 200; i++)
    lines.push(`[${String(i).padStart(4, '0')}] compiling pkg/module_${i % 37}/file_${i}.go ... ok`);
  lines.push('FAIL: TestParseTuple (0.01s) expected 1 element, got 0', 'exit code 2');
  return lines.join('\n');
})();

/** A setup that overflows without the kernel: 8,192 window, ~2,000 system, ~1,500 tool definitions, ~1,500 history. */
function brokenSetup(options: Parameters<typeof buildBudgetAgent>[0]['options'] = {}) {
  const manager = new NaiveManager(8192, 1024);
  const systemPrompt = sizedText(2000);
  const tools = [testTool('bash', () => buildLog, 740), testTool('read_file', () => goFile(500), 740)];
  const history: ChatMessage[] = [
    { role: 'user', content: sizedText(700) },
    { role: 'assistant', content: sizedText(700) },
    { role: 'user', content: 'Run the tests and read main.go, then tell me why TestParseTuple fails.' },
  ];
  const built = buildBudgetAgent({
    manager,
    tools,
    script: [
      { content: null, tool_calls: [toolCall('c1', 'bash', { command: 'make test' })] },
      { content: null, tool_calls: [toolCall('c2', 'read_file', { path: 'main.go' })] },
      'The tuple case is never parsed.',
    ],
    options: { systemPrompt, ...options },
  });
  return { ...built, manager, history, systemPrompt, tools };
}

describe('a coding agent that overflows an 8,192 window', () => {
  it(
    'starts from the setup numbers: ~2,000 system, ~1,500 tools, ~1,500 history, a 30 KB output of ~7,500 ' + 'tokens',
    () => {
      const { systemPrompt, tools, history } = brokenSetup();
      expect(testCounter.countMessage({ role: 'system', content: systemPrompt })).toBeGreaterThan(1900);
      expect(testCounter.countTools(tools.map((t) => t.definition))).toBeGreaterThan(1400);
      expect(testCounter.countMessages(history)).toBeGreaterThan(1350);
      expect(Buffer.byteLength(buildLog)).toBeGreaterThan(30_000);
      expect(testCounter.count(buildLog)).toBeGreaterThan(7000);
    },
  );

  it('fits every payload: the bash output is cut head + tail, the file read comes back as outline + part', async () => {
    const { agent, llm, history } = brokenSetup();
    const result = await agent.run(history);
    expect(result.stopReason).toBe('final-answer');
    for (const request of llm.requests) {
      const tokens = testCounter.countMessages(request.messages) + testCounter.countTools(request.tools ?? []);
      expect(tokens).toBeLessThanOrEqual(6349);
      expect(findPayloadProblems(request.messages)).toEqual([]);
    }
    if (process.env.CTXKIT_REPLAY_REPORT) {
      const first = result.payloads[0]!;
      const report = {
        sections: first.sections,
        budget: first.budget,
        tokensPerCall: result.budget.tokensPerCall,
        toolOutputs: result.budget.toolOutputs,
        preSend: result.budget.preSendChecks.map((c) => c.steps),
      };
      process.stdout.write(`${JSON.stringify(report)}\n`);
    }
    const [bash, read] = result.budget.toolOutputs;
    expect(bash).toMatchObject({ toolName: 'bash', category: 'command', kind: 'head-tail', truncated: true });
    expect(bash!.tokensAfter).toBeLessThanOrEqual(bash!.limit);
    const bashText = result.messages[4]!.content as string;
    expect(bashText.startsWith('$ make test')).toBe(true);
    expect(bashText.endsWith('exit code 2')).toBe(true);
    expect(bashText).toMatch(/lines \([\d,]+ bytes\) elided/);
    expect(read).toMatchObject({
      toolName: 'read_file',
      category: 'file-read',
      kind: 'outline',
      truncated: true,
      outline: { lineCount: 500 },
    });
    const readText = result.messages[6]!.content as string;
    expect(readText).toContain('File main.go has 500 lines (Go).');
    expect(readText).toMatch(/func handler0/);
    expect(readText).toContain('offset and limit');
    expect(result.budget.plan?.modes).toEqual({ A: 'on', B: 'on', C: 'partial', D: 'when-needed' });
    expect(result.budget.advice).toEqual([expect.stringContaining('main.go (500 lines) is large')]);
  });

  it('gives the tools the same limit the truncation uses', async () => {
    const limits: number[] = [];
    const manager = new NaiveManager(8192, 1024);
    const lines = goFile(500).split('\n');
    const reader = testTool('read_file', (_args, context) => {
      // A tool that reads only what fits: at most about 30 tokens a line here.
      const budget = context.toolOutputTokenLimit ?? Number.POSITIVE_INFINITY;
      limits.push(budget);
      return lines.slice(0, Math.floor(budget / 30)).join('\n');
    });
    const { agent } = buildBudgetAgent({
      manager,
      tools: [reader],
      script: [{ content: null, tool_calls: [toolCall('c1', 'read_file', { path: 'main.go' })] }, 'done'],
      options: { systemPrompt: sizedText(2000) },
    });
    const result = await agent.run('Read main.go.');
    const [report] = result.budget.toolOutputs;
    expect(limits).toEqual([report!.limit]);
    expect(report!.truncated).toBe(false);
    expect(report!.tokensAfter).toBeLessThanOrEqual(report!.limit);
  });

  it('cuts file reads from the top when mode B is forced off', async () => {
    const { agent, history } = brokenSetup({ smallContext: { modes: { B: 'off' } } });
    const result = await agent.run(history);
    expect(result.budget.toolOutputs[1]).toMatchObject({ kind: 'head', truncated: true });
    expect((result.messages[6]!.content as string).startsWith('package main')).toBe(true);
    expect(result.budget.modesFired.B).toBe(0);
  });

  it('follows a per-tool policy from the agent options', async () => {
    const { agent, history } = brokenSetup({ toolOutputPolicies: { bash: { kind: 'tail', maxTokens: 200 } } });
    const result = await agent.run(history);
    expect(result.budget.toolOutputs[0]).toMatchObject({ kind: 'tail', limit: 200 });
    expect((result.messages[4]!.content as string).endsWith('exit code 2')).toBe(true);
  });
});

describe('pre-send check', () => {
  /** A history whose last step's result entered unchecked (e.g. restored from an older run). */
  function history(oldResults: number, oldTokens: number, newestTokens: number): ChatMessage[] {
    const messages: ChatMessage[] = [{ role: 'user', content: 'Fix the parser.' }];
    for (let i = 0; i < oldResults; i++) {
      messages.push({
        role: 'assistant',
        content: null,
        tool_calls: [toolCall(`old${i}`, 'bash', { command: `grep -rn tuple src/part${i}` })],
      });
      messages.push({ role: 'tool', tool_call_id: `old${i}`, content: sizedText(oldTokens) });
    }
    messages.push({ role: 'user', content: 'Now run the tests.' });
    messages.push({
      role: 'assistant',
      content: null,
      tool_calls: [toolCall('new', 'bash', { command: 'make test' })],
    });
    messages.push({ role: 'tool', tool_call_id: 'new', content: sizedText(newestTokens) });
    return messages;
  }

  const steps = (seen: Array<{ name: string; payload: Record<string, unknown> }>) =>
    seen.filter((e) => e.name === 'budget-escalation').map((e) => e.payload.step);

  it('trims old tool results first, and stops there when that fits', async () => {
    const manager = new NaiveManager(8192, 1024, { compactable: true });
    const { agent, llm, seen } = buildBudgetAgent({
      manager,
      script: ['ok'],
      options: { smallContext: { modes: { A: 'off' } } },
    });
    const result = await agent.run(history(4, 2000, 500));
    expect(steps(seen)).toEqual(['trim-old-tool-results']);
    const check = result.budget.preSendChecks[0]!;
    expect(check.tokensBefore).toBeGreaterThan(check.limit);
    expect(check.tokensAfter).toBeLessThanOrEqual(check.limit);
    expect(llm.requests[0]!.messages[3]!.content).toMatch(/^\[Ran: grep -rn tuple src\/part0 \(1 lines\) — collapsed/);
    // The caller's history keeps the full results.
    expect((result.messages[2]!.content as string).length).toBeGreaterThan(5000);
    expect(result.payloads[0]!.reductions.filter((r) => r.action === 'trimmed').map((r) => r.from)).toEqual([2, 4]);
    expect(check.steps[0]!.messages).toBe(2);
  });

  it(
    'escalates in order: trim old results, compact history, force-truncate, each with tokens before and ' + 'after',
    async () => {
      const manager = new NaiveManager(8192, 1024, { compactable: true });
      const { agent, llm, seen } = buildBudgetAgent({
        manager,
        script: ['ok'],
        options: { smallContext: { modes: { A: 'off' } } },
      });
      const result = await agent.run(history(2, 1500, 9000));
      expect(steps(seen)).toEqual(['trim-old-tool-results', 'compact-history', 'truncate-tool-results']);
      const check = result.budget.preSendChecks[0]!;
      expect(check.steps.map((s) => s.step)).toEqual([
        'trim-old-tool-results',
        'compact-history',
        'truncate-tool-results',
      ]);
      for (let i = 1; i < check.steps.length; i++)
        expect(check.steps[i]!.tokensBefore).toBe(check.steps[i - 1]!.tokensAfter);
      expect(check.steps.every((s) => s.tokensAfter < s.tokensBefore)).toBe(true);
      expect(check.tokensAfter).toBeLessThanOrEqual(check.limit);
      expect(manager.compactionCalls).toContain('after-tools');
      expect(result.compactions).toBeGreaterThanOrEqual(1);
      const sent = llm.requests[0]!;
      expect(testCounter.countMessages(sent.messages)).toBeLessThanOrEqual(check.limit);
      expect(findPayloadProblems(sent.messages)).toEqual([]);
      expect(sent.messages.map((m) => m.role)).toEqual(['system', 'user', 'user', 'assistant', 'tool']);
      expect(sent.messages[2]!.content).toBe('Now run the tests.');
    },
  );

  it('skips compaction when the strategy cannot compact', async () => {
    const manager = new NaiveManager(8192, 1024);
    const { agent, seen } = buildBudgetAgent({
      manager,
      script: ['ok'],
      options: { smallContext: { modes: { A: 'off' } } },
    });
    await agent.run(history(2, 1500, 9000));
    expect(steps(seen)).toEqual(['trim-old-tool-results', 'truncate-tool-results']);
  });

  it('refuses with a typed error saying what did not fit, and never calls the model', async () => {
    const manager = new NaiveManager(4096, 512);
    const { agent, llm, seen } = buildBudgetAgent({
      manager,
      script: ['ok'],
      options: { systemPrompt: sizedText(4000) },
    });
    const run = agent.run(history(1, 50, 50));
    await expect(run).rejects.toBeInstanceOf(BudgetExceededError);
    await expect(run).rejects.toMatchObject({
      code: ErrorCodes.BUDGET_EXCEEDED,
      details: { sections: { system: expect.any(Number) } },
    });
    expect(llm.requests).toHaveLength(0);
    expect(steps(seen).at(-1)).toBe('error');
    expect(seen.filter((e) => e.name === 'user-advice').map((e) => e.payload.message)).toEqual([
      expect.stringContaining('smaller file'),
    ]);
  });

  it('still repairs the payload of a strategy that ignores the mode A request, on the payload only', async () => {
    const manager = new NaiveManager(8192, 1024);
    const { agent, llm, seen } = buildBudgetAgent({ manager, script: ['ok'], options: { contextWindow: 8192 } });
    const input = history(4, 2000, 500);
    const result = await agent.run(input);
    expect(manager.composed[0]!.options).toEqual({ collapseOlderToolResults: true });
    expect(manager.composed[0]!.history).toEqual(input);
    expect(steps(seen)).toEqual(['trim-old-tool-results']);
    expect(llm.requests[0]!.messages[3]!.content).toMatch(/^\[Ran: grep -rn tuple src\/part0 \(1 lines\) — collapsed/);
    expect(result.messages).toEqual(input.concat([{ role: 'assistant', content: 'ok' }]));
    expect(result.budget.modesFired.A).toBe(0);
  });

  it('keeps results the strategy already sends as one-line summaries, and escalates', async () => {
    const input = history(1, 2000, 9000);
    // A result of many lines: its one-line summary says how many ("(300 lines)").
    const full: ToolMessage = {
      role: 'tool',
      tool_call_id: 'old0',
      content: Array.from({ length: 300 }, (_, i) => `src/part0/tuple_${i}.go:${i}: parseTuple(x)`).join('\n'),
    };
    input[2] = full;
    const call = (input[1] as AssistantMessage).tool_calls![0]!;
    const collapsed: ToolMessage = {
      role: 'tool',
      tool_call_id: full.tool_call_id,
      content: collapsedToolResult(call, full.content as string),
    };
    const messages: ChatMessage[] = [
      { role: 'system', content: 'You fix parsers.' },
      ...input.map((message, index) => (index === 2 ? collapsed : message)),
    ];
    const manager = new NaiveManager(8192, 1024);
    const payload = await manager.composePayload('You fix parsers.', input, []);
    const result = await preSendCheck({
      payload: { ...payload, messages },
      history: input,
      manager,
      counter: testCounter,
      limit: 6000,
      contextWindow: 8192,
      strategyId: 'naive',
      call: 0,
      flagged: false,
      recompose: () => Promise.reject(new Error('not compactable')),
    });
    expect(result.report.steps.map((step) => step.step)).toEqual(['truncate-tool-results']);
    expect(collapsed.content).toMatch(/\(300 lines\) — collapsed/);
    expect(result.payload.messages[3]).toBe(collapsed);
    expect(result.reductions.map((record) => [record.action, record.from])).toEqual([['truncated', 5]]);
  });

  it('leaves a payload under the line untouched', async () => {
    const manager = new NaiveManager(8192, 1024);
    const { agent, seen } = buildBudgetAgent({ manager, script: ['ok'] });
    const result = await agent.run('Hello.');
    expect(steps(seen)).toEqual([]);
    expect(result.budget.preSendChecks[0]!.steps).toEqual([]);
  });
});
