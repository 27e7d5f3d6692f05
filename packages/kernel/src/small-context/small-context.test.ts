import {
  type ChatMessage,
  CtxkitEventBus,
  type LLMCompletionRequest,
  type LLMPayload,
  safeEmit,
  type ToolDefinition,
} from '@ctxkit/core';
import { ToolResultCollapser } from '@ctxkit/core/strategy-kit';

import {
  buildBudgetAgent,
  ComposerManager,
  NaiveManager,
  sizedText,
  testCounter,
  testTool,
  toolCall,
} from '../__fixtures__/budget-test-agent';
import { resolveToolOutputPolicy } from '../budget/tool-output-policy';
import { selectPromptAndTools } from './select-prompt-and-tools';
import { smallContextFromManifest } from './small-context-from-manifest';
import { planSmallContext, tierLabel } from './small-context-plan';

describe('planSmallContext', () => {
  it('follows the small-context matrix by window size', () => {
    expect(planSmallContext(4096).modes).toEqual({ A: 'full', B: 'full', C: 'full', D: 'when-needed' });
    expect(planSmallContext(8192).modes).toEqual({ A: 'on', B: 'on', C: 'partial', D: 'when-needed' });
    expect(planSmallContext(16384).modes).toEqual({ A: 'when-needed', B: 'when-needed', C: 'off', D: 'when-needed' });
    expect(planSmallContext(32768).modes).toEqual({ A: 'when-needed', B: 'off', C: 'off', D: 'off' });
    expect(tierLabel(planSmallContext(12000))).toBe('8K-16K');
  });

  it('moves the boundaries with the threshold and applies forced settings', () => {
    expect(planSmallContext(16384, { threshold: 32768 }).tier).toBe(1);
    const plan = planSmallContext(65536, { modes: { A: 'on', B: true, C: 'auto', D: 'on' } });
    expect(plan.modes).toEqual({ A: 'on', B: 'on', C: 'off', D: 'when-needed' });
    expect(plan.forced).toEqual(['A', 'B', 'D']);
    expect(planSmallContext(4096, { modes: { A: false } }).modes.A).toBe('off');
  });
});

describe('smallContextFromManifest', () => {
  it('reads the manifest fields of strategy C and the forced modes', () => {
    expect(
      smallContextFromManifest({
        id: 'a',
        compactSystemPrompt: 'Be brief.',
        essentialTools: ['bash'],
        smallContextThreshold: 8192,
        smallContextModes: { A: 'off', B: 'nope' },
      }),
    ).toEqual({ compactSystemPrompt: 'Be brief.', essentialTools: ['bash'], threshold: 8192, modes: { A: 'off' } });
    expect(smallContextFromManifest({ id: 'a' })).toBeUndefined();
  });
});

describe('ToolResultCollapser', () => {
  const history: ChatMessage[] = [
    { role: 'user', content: 'Fix main.go.' },
    { role: 'assistant', content: null, tool_calls: [toolCall('r1', 'read_file', { path: 'src/main.go' })] },
    { role: 'tool', tool_call_id: 'r1', content: Array.from({ length: 500 }, (_, i) => `line ${i}`).join('\n') },
    { role: 'assistant', content: null, tool_calls: [toolCall('e1', 'edit_file', { path: 'src/main.go' })] },
    { role: 'tool', tool_call_id: 'e1', content: 'Edited 3 lines.'.repeat(20) },
  ];

  describe('#collapse', () => {
    it('keeps only the newest step in full and collapses older results to one line', () => {
      const frozen = structuredClone(history);
      const view = new ToolResultCollapser().collapse(history);
      expect(view.history[2]!.content).toBe(
        '[Read: main.go (500 lines, Go) — collapsed; call the tool again to see it]',
      );
      expect(view.history[4]).toBe(history[4]);
      expect(view.reductions).toEqual([
        expect.objectContaining({ action: 'trimmed', from: 2, to: 3, recoverableFrom: 'history' }),
      ]);
      expect(history).toEqual(frozen);
    });

    it('returns the same copy for the same result on every call', () => {
      const collapser = new ToolResultCollapser();
      expect(collapser.collapse(history).history[2]).toBe(collapser.collapse(history).history[2]);
    });
  });

  describe('#view', () => {
    it('gives the view collapse gives, with the indexes of the collapsed results instead of their records', () => {
      const longer: ChatMessage[] = [
        ...history,
        { role: 'assistant', content: null, tool_calls: [toolCall('g1', 'grep', { pattern: 'main' })] },
        { role: 'tool', tool_call_id: 'g1', content: 'src/main.go:1: package main\n'.repeat(40) },
      ];
      const collapser = new ToolResultCollapser();
      const view = collapser.view(longer);
      const collapsed = collapser.collapse(longer);
      expect(view.collapsedAt).toEqual([2, 4]);
      expect(collapsed.reductions.map((record) => record.from)).toEqual(view.collapsedAt);
      expect(view.history).toEqual(collapsed.history);
      expect(view.history[6]).toBe(longer[6]);
    });

    it('summarises a result under the newest call with its id', () => {
      const reused: ChatMessage[] = [
        { role: 'user', content: 'Read it.' },
        { role: 'assistant', content: null, tool_calls: [toolCall('c1', 'read_file', { path: 'old.py' })] },
        { role: 'assistant', content: null, tool_calls: [toolCall('c1', 'read_file', { path: 'src/new.go' })] },
        { role: 'tool', tool_call_id: 'c1', content: Array.from({ length: 50 }, (_, i) => `line ${i}`).join('\n') },
        { role: 'assistant', content: null, tool_calls: [toolCall('c2', 'edit_file', { path: 'src/new.go' })] },
        { role: 'tool', tool_call_id: 'c2', content: 'Edited.' },
      ];
      expect(new ToolResultCollapser().view(reused).history[3]!.content).toContain('new.go');
    });
  });
});

describe('selectPromptAndTools', () => {
  const tools: ToolDefinition[] = ['bash', 'read', 'write', 'browser', 'tool_output_cache'].map((name) => ({
    type: 'function',
    function: { name, description: sizedText(200) },
  }));
  const base = {
    systemPrompt: sizedText(2000),
    toolDefinitions: tools,
    userToolNames: new Set(['bash', 'read', 'write', 'browser']),
    options: { compactSystemPrompt: 'Be brief; English only.', essentialTools: ['bash', 'read', 'write'] },
    counter: testCounter,
  };

  it(
    'switches to the compact prompt and the essential tools below half the threshold, the strategy tools ' + 'included',
    () => {
      const chosen = selectPromptAndTools({ ...base, intensity: 'full', contextWindow: 4096 });
      expect(chosen.applied).toBe(true);
      expect(chosen.systemPrompt).toBe('Be brief; English only.');
      expect(chosen.toolDefinitions.map((t) => t.function.name)).toEqual(['bash', 'read', 'write']);
      expect(chosen.tokensAfter).toBeLessThan(chosen.tokensBefore / 2);
    },
  );

  it('keeps the strategy tools and decides by share of the window when partial', () => {
    expect(
      selectPromptAndTools({ ...base, intensity: 'partial', contextWindow: 8192 }).toolDefinitions.map(
        (t) => t.function.name,
      ),
    ).toEqual(['bash', 'read', 'write', 'tool_output_cache']);
    expect(selectPromptAndTools({ ...base, intensity: 'partial', contextWindow: 15000 }).applied).toBe(false);
    expect(selectPromptAndTools({ ...base, intensity: 'off', contextWindow: 4096 }).applied).toBe(false);
  });
});

describe('resolveToolOutputPolicy', () => {
  it('tells command output, file reads and searches apart by name and arguments', () => {
    expect(resolveToolOutputPolicy('execute_bash', '{"command":"make"}')).toMatchObject({
      category: 'command',
      kind: 'head-tail',
    });
    expect(resolveToolOutputPolicy('str_replace_editor', '{"command":"view","path":"/w/a.c"}')).toMatchObject({
      category: 'file-read',
      kind: 'head',
      path: '/w/a.c',
    });
    expect(resolveToolOutputPolicy('str_replace_editor', '{"command":"str_replace","path":"/w/a.c"}')).toMatchObject({
      category: 'other',
      kind: 'head-tail',
    });
    expect(resolveToolOutputPolicy('read_file', { path: 'main.go' })).toMatchObject({ category: 'file-read' });
    expect(resolveToolOutputPolicy('grep', { pattern: 'x' })).toMatchObject({ category: 'search', kind: 'head' });
    expect(resolveToolOutputPolicy('bash', '{}', { bash: { kind: 'tail', maxTokens: 99 } })).toMatchObject({
      kind: 'tail',
      maxTokens: 99,
      source: 'policy',
    });
  });
});

describe('Agent small-context modes', () => {
  const bigRead = () => sizedText(600);

  const readBoth = () => [
    { content: null, tool_calls: [toolCall('r1', 'read_file', { path: 'a.go' })] },
    { content: null, tool_calls: [toolCall('r2', 'read_file', { path: 'b.go' })] },
    'done',
  ];
  const sentResult = (messages: readonly ChatMessage[], id: string) =>
    messages.find((m) => m.role === 'tool' && m.tool_call_id === id)?.content;

  it(
    'asks the strategy for mode A through the compose option and gives it the same history in both calls (mode ' + 'A)',
    async () => {
      const manager = new ComposerManager(8192, 1024);
      const { agent, llm, seen } = buildBudgetAgent({
        manager,
        tools: [testTool('read_file', bigRead)],
        script: readBoth(),
        options: { contextWindow: 8192 },
      });
      const result = await agent.run('Read both files.');

      // The strategy is given the run's history, untouched, and the request to collapse.
      const third = manager.composed[2]!;
      expect(third.options).toEqual({ collapseOlderToolResults: true });
      expect(third.history[2]!.content).toBe(bigRead());
      const completed = manager.completed[0]!;
      third.history.forEach((message, index) => expect(completed[index]).toBe(message));
      expect(result.messages[2]!.content).toBe(bigRead());

      // Its composer applies it to the payload only: the older result goes out as one line, the newest in full.
      expect(sentResult(llm.requests[2]!.messages, 'r1')).toMatch(/^\[Read: a\.go \(1 lines, Go\) — collapsed/);
      expect(sentResult(llm.requests[2]!.messages, 'r2')).toBe(bigRead());
      expect(result.budget.modesFired.A).toBe(1);
      expect(result.payloads[2]!.reductions).toEqual([expect.objectContaining({ action: 'trimmed', from: 2, to: 3 })]);
      expect(result.payloads[2]!.trimmed).toBe(1);
      expect(result.payloads[2]!.extra?.smallContext).toMatchObject({ contextWindow: 8192, modes: { A: 'on' } });
      const modes = seen.filter((e) => e.name === 'small-context-mode').map((e) => [e.payload.mode, e.payload.active]);
      expect(modes).toEqual([
        ['A', true],
        ['B', true],
      ]);
    },
  );

  it('counts mode A from the collapsed reductions when the model repeats its tool call ids', async () => {
    // Some servers number each reply's calls from call_0: both reads have the same id.
    const manager = new ComposerManager(8192, 1024);
    const { agent, llm } = buildBudgetAgent({
      manager,
      tools: [testTool('read_file', bigRead)],
      script: [
        { content: null, tool_calls: [toolCall('call_0', 'read_file', { path: 'a.go' })] },
        { content: null, tool_calls: [toolCall('call_0', 'read_file', { path: 'b.go' })] },
        'done',
      ],
      options: { contextWindow: 8192 },
    });
    const result = await agent.run('Read both files.');
    const sent = llm.requests[2]!.messages.filter((message) => message.role === 'tool').map((m) => m.content);
    expect(sent).toEqual([expect.stringMatching(/^\[Read: a\.go \(1 lines, Go\) — collapsed/), bigRead()]);
    expect(result.budget.modesFired.A).toBe(1);
  });

  it(
    'leaves the payload to a strategy that ignores the compose option: results in full, mode A not ' + 'counted',
    async () => {
      const manager = new NaiveManager(8192, 1024);
      const { agent, llm } = buildBudgetAgent({
        manager,
        tools: [testTool('read_file', bigRead)],
        script: readBoth(),
        options: { contextWindow: 8192 },
      });
      const result = await agent.run('Read both files.');
      expect(manager.composed.map((c) => c.options)).toEqual([
        { collapseOlderToolResults: true },
        { collapseOlderToolResults: true },
        { collapseOlderToolResults: true },
      ]);
      expect(manager.composed[2]!.history[2]!.content).toBe(bigRead());
      expect(sentResult(llm.requests[2]!.messages, 'r1')).toBe(bigRead());
      expect(result.budget.modesFired.A).toBe(0);
      expect(result.payloads[2]!.reductions).toEqual([]);
    },
  );

  it('passes no compose option while mode A is not needed (large window)', async () => {
    const manager = new NaiveManager(32768, 4096);
    const { agent } = buildBudgetAgent({
      manager,
      tools: [testTool('read_file', bigRead)],
      script: readBoth(),
      options: { contextWindow: 32768 },
    });
    await agent.run('Read both files.');
    expect(manager.composed.map((c) => c.options)).toEqual([undefined, undefined, undefined]);
  });

  it('sends the compact prompt and the essential tools at 4K (mode C), and the full ones at 32K', async () => {
    const tools = ['bash', 'read_file', 'browser'].map((name) => testTool(name, () => 'ok', 300));
    const options = {
      systemPrompt: sizedText(1500),
      smallContext: { compactSystemPrompt: 'Short rules.', essentialTools: ['bash', 'read_file'] },
    };
    const small = buildBudgetAgent({
      manager: new NaiveManager(4096, 512),
      tools,
      script: ['hi'],
      options: { ...options, contextWindow: 4096 },
    });
    await small.agent.run('Hello');
    expect(small.llm.requests[0]!.messages[0]!.content).toBe('Short rules.');
    expect(small.llm.requests[0]!.tools!.map((t) => t.function.name)).toEqual(['bash', 'read_file']);
    const large = buildBudgetAgent({
      manager: new NaiveManager(32768, 4096),
      tools,
      script: ['hi'],
      options: { ...options, contextWindow: 32768 },
    });
    await large.agent.run('Hello');
    expect(large.llm.requests[0]!.tools).toHaveLength(3);
  });

  it('learns the window from the first payload when none is given', async () => {
    const manager = new NaiveManager(4096, 512);
    const { agent } = buildBudgetAgent({
      manager,
      script: ['hi'],
      options: { smallContext: { compactSystemPrompt: 'Short.' } },
    });
    const result = await agent.run('Hello');
    expect(result.budget.contextWindow).toBe(4096);
    expect(result.budget.plan?.tier).toBe(0);
    expect(manager.composed.map((c) => c.systemPrompt)).toEqual(['', 'Short.']);
  });
});

describe('Agent usage levels', () => {
  /** The naive manager, but emitting usage-level-change itself where the host does not, as the composer does. */
  class EmittingManager extends NaiveManager {
    bus: CtxkitEventBus | undefined;
    override async composePayload(
      systemPrompt: string,
      history: ChatMessage[],
      tools: ToolDefinition[],
    ): Promise<LLMPayload> {
      const payload = await super.composePayload(systemPrompt, history, tools);
      if (payload.stats.usageLevel !== 'ok' && this.bus && !this.bus.hostedUsageLevels.has('default')) {
        safeEmit(this.bus, 'usage-level-change', {
          agentId: 'coder',
          sessionId: 'default',
          strategyId: 'naive',
          turn: 1,
          from: 'ok',
          to: payload.stats.usageLevel,
          used: payload.stats.output_tokens,
          contextWindow: 4096,
        });
      }
      return payload;
    }
  }

  it('emits usage-level-change once per crossing for a strategy that does not', async () => {
    const { agent, seen } = buildBudgetAgent({
      manager: new NaiveManager(4096, 512),
      script: ['a', 'b'],
      options: { contextWindow: 4096 },
    });
    await agent.run(sizedText(2600));
    await agent.run('And?');
    expect(seen.filter((e) => e.name === 'usage-level-change').map((e) => [e.payload.from, e.payload.to])).toEqual([
      ['ok', 'warn'],
    ]);
  });

  it('emits each crossing once with calibration on, for a strategy that composes with PayloadComposer', async () => {
    const events = new CtxkitEventBus();
    // A provider that counts 15% more than the agent's tokenizer: the calibrated count crosses 60% turns before the
    // strategy's own.
    const provider = (request: LLMCompletionRequest) => ({
      reply: 'Noted.',
      usage: {
        input_tokens: Math.round(
          (testCounter.countMessages(request.messages) + testCounter.countTools(request.tools ?? [])) * 1.15,
        ),
      },
    });
    const { agent, seen } = buildBudgetAgent({
      manager: new ComposerManager(4096, 512, events),
      events,
      online: true,
      script: Array.from({ length: 20 }, () => provider),
      options: { contextWindow: 4096 },
    });
    const used: number[] = [];
    for (let turn = 0; turn < 15; turn++) used.push((await agent.run(sizedText(150))).budget.tokensPerCall[0]!);
    const changes = seen.filter((e) => e.name === 'usage-level-change').map((e) => e.payload);
    expect(changes.map((change) => [change.from, change.to])).toEqual([['ok', 'warn']]);
    // The kernel's count of the payload it sent (calibrated), not the strategy's own.
    expect(changes[0]!.used).toBe(used.find((tokens) => tokens >= 0.6 * 4096));
  });

  /** A history whose old read (about 3,800 tokens) takes a 4,096 window past 90%: the pre-send check trims it. */
  const overfull = (): ChatMessage[] => [
    { role: 'user', content: 'Read the log, then run the tests.' },
    { role: 'assistant', content: null, tool_calls: [toolCall('c1', 'read_file', { path: 'build.log' })] },
    { role: 'tool', tool_call_id: 'c1', content: sizedText(3800) },
    { role: 'assistant', content: null, tool_calls: [toolCall('c2', 'bash', { command: 'make test' })] },
    { role: 'tool', tool_call_id: 'c2', content: 'ok' },
    { role: 'user', content: 'What failed?' },
  ];

  it(
    'emits critical when the payload as composed passes 90% of the window, before the pre-send check fits ' + 'it',
    async () => {
      const history = overfull();
      const { agent, seen } = buildBudgetAgent({
        manager: new NaiveManager(4096, 512),
        script: ['Nothing failed.'],
        options: { contextWindow: 4096 },
      });
      const result = await agent.run(history);
      const [check] = result.budget.preSendChecks;
      expect(check!.tokensBefore).toBeGreaterThan(0.9 * 4096);
      expect(check!.steps.map((step) => step.step)).toEqual(['trim-old-tool-results']);
      expect(
        seen.filter((e) => e.name === 'usage-level-change').map((e) => [e.payload.from, e.payload.to, e.payload.used]),
      ).toEqual([['ok', 'critical', check!.tokensBefore]]);
    },
  );

  it('reports each record its pre-send check adds to the payload in one tool-output-trim', async () => {
    const { agent, seen } = buildBudgetAgent({
      manager: new NaiveManager(4096, 512),
      script: ['Nothing failed.'],
      options: { contextWindow: 4096 },
    });
    const result = await agent.run(overfull());
    const added = result.payloads[0]!.reductions;
    expect(added).toEqual([expect.objectContaining({ action: 'trimmed', from: 2, to: 3 })]);
    expect(seen.filter((e) => e.name === 'tool-output-trim').map((e) => e.payload.reductions)).toEqual([added]);
  });

  it(
    'is the one emitter: the session is hosted before the strategy composes, so a strategy that emits it itself ' +
      'stays silent',
    async () => {
      const manager = new EmittingManager(4096, 512);
      const { agent, seen, events } = buildBudgetAgent({ manager, script: ['a'], options: { contextWindow: 4096 } });
      manager.bus = events;
      await agent.run(sizedText(2600));
      expect(events.hostedUsageLevels.has('default')).toBe(true);
      expect(seen.filter((e) => e.name === 'usage-level-change')).toHaveLength(1);
    },
  );
});
