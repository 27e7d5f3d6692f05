import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

import { computeBudget, withUsage } from '../budget/compute-budget';
import { usageLevel } from '../budget/usage-level';
import type { ChatMessage } from '../contracts/chat-message';
import type { IContextManager } from '../contracts/context-manager';
import type { LLMPayload, ReductionRecord } from '../contracts/llm-payload';
import type { ToolDefinition } from '../contracts/tool-definition';
import { BudgetExceededError } from '../errors/budget-exceeded-error';
import { HistoryValidationError } from '../errors/history-validation-error';
import { safeEmit } from '../events/event-bus';
import { freezeDeep } from '../messages/freeze-deep';
import { groupToolCalls } from '../messages/group-tool-calls';
import type { StrategyContext, StrategyFactory } from '../plugins/strategy-plugin';
import { HeuristicTokenCounter } from '../token-counting/heuristic-counter';
import { checkPayload } from './check-payload';
import type { ConformanceCase } from './conformance-case';
import { budgetCases, hostileCases } from './conformance-cases';
import { BUNDLED_CONVERSATIONS } from './conversation-record';
import { loadConversations } from './load-conversations';
import { opaqueItemMessages } from './opaque-item-messages';
import { checkConformance, runConformance } from './strategy-tester';

/**
 * The reference strategy's plugin, as the suite loads every strategy: a `plugin.json` whose schema
 * takes the case budget (and a `label` with a default), and a built entry that hands over to the
 * factory a test registers in `globalThis.__ctxkitConformanceFactory`.
 */
const referencePlugin = fs.mkdtempSync(path.join(os.tmpdir(), 'ctxkit-conformance-plugin-'));
fs.writeFileSync(
  path.join(referencePlugin, 'plugin.json'),
  JSON.stringify({
    id: 'reference-conformance-strategy',
    kind: 'context-strategy',
    name: 'Reference',
    version: '1.0.0',
    entry: './index.js',
    configSchema: {
      type: 'object',
      additionalProperties: false,
      properties: {
        maxContextTokens: { type: 'integer', minimum: 1 },
        reserveOutputTokens: { type: 'integer', minimum: 0 },
        label: { type: 'string', default: 'plain' },
      },
    },
  }),
);
fs.writeFileSync(
  path.join(referencePlugin, 'index.js'),
  'exports.createStrategy = (config, context) => globalThis.__ctxkitConformanceFactory(config, context);\n',
);
afterAll(() => fs.rmSync(referencePlugin, { recursive: true, force: true }));

interface ReferenceConfig {
  maxContextTokens: number;
  reserveOutputTokens: number;
}

type Flaw =
  | 'mutates-history'
  | 'splits-groups'
  | 'exceeds-budget'
  | 'drops-silently'
  | 'plain-error'
  | 'drops-current-turn'
  | 'reports-cuts-twice'
  | 'cuts-without-event';

const ROLES = new Set(['system', 'user', 'assistant', 'tool']);

/** Shortens a text to at most `tokens`, keeping head and tail around a visible marker. */
function truncateText(text: string, tokens: number, context: StrategyContext): string {
  if (context.counter.count(text) <= tokens) return text;
  let keep = Math.max(0, Math.floor(text.length * 0.5));
  for (;;) {
    const half = Math.floor(keep / 2);
    const candidate =
      `${text.slice(0, half)}\n[... truncated ${text.length - 2 * half} chars ` +
      `...]\n${half > 0 ? text.slice(-half) : ''}`;
    if (context.counter.count(candidate) <= tokens || keep === 0) return candidate;
    keep = Math.floor(keep / 2);
  }
}

/**
 * The reference strategy: newest whole groups that fit; the newest user message and the newest
 * unit of the current turn are always kept (truncated when needed). `flaw` breaks one invariant.
 */
function referenceStrategy(flaw?: Flaw): StrategyFactory<ReferenceConfig> {
  return (config: ReferenceConfig, context: StrategyContext): IContextManager => ({
    async onTurnComplete() {},
    async composePayload(
      systemPrompt: string,
      history: ChatMessage[],
      tools: ToolDefinition[],
      ragContext?: string,
    ): Promise<LLMPayload> {
      const { counter } = context;
      history.forEach((message, index) => {
        if (!ROLES.has((message as { role: string }).role))
          throw new HistoryValidationError(index, `unknown role ${JSON.stringify((message as { role: string }).role)}`);
      });
      if (flaw === 'mutates-history' && history.length > 0) (history[0] as { content: unknown }).content = 'changed';
      const limit = config.maxContextTokens - config.reserveOutputTokens;
      const head: ChatMessage[] = [{ role: 'system', content: systemPrompt }];
      if (ragContext !== undefined) head.push({ role: 'system', content: `Context:\n${ragContext}` });
      const fixed = counter.countMessages(head) + counter.countTools(tools);
      if (fixed > limit && flaw !== 'exceeds-budget') {
        if (flaw === 'plain-error') throw new Error('too big');
        throw new BudgetExceededError('reference', { available: limit, required: fixed, sections: { system: fixed } });
      }
      let room = limit - fixed;
      const units = groupToolCalls(history);
      const valid = units.filter((unit) => unit.kind !== 'orphan-tool' && unit.kind !== 'incomplete-tool-exchange');
      let newestUser = -1;
      history.forEach((message, index) => {
        if (message.role === 'user') newestUser = index;
      });
      const replaced = new Map<number, ChatMessage>();
      const keep = new Set<number>();
      const truncatedAt: number[] = [];
      const take = (start: number, end: number) => {
        for (let i = start; i < end; i++) keep.add(i);
      };
      // mandatory: the newest user message, then the newest unit after it
      const userUnit = valid.find((unit) => unit.start === newestUser);
      const newestUnit = valid.at(-1);
      if (userUnit) {
        const message = history[newestUser]!;
        let cost = counter.countMessage(message);
        if (cost > room / 2) {
          const text = typeof message.content === 'string' ? message.content : '';
          const short: ChatMessage = { role: 'user', content: truncateText(text, Math.floor(room / 2) - 8, context) };
          replaced.set(newestUser, short);
          truncatedAt.push(newestUser);
          cost = counter.countMessage(short);
        }
        room -= cost;
        take(newestUser, newestUser + 1);
      }
      if (newestUnit && newestUnit.start > newestUser && flaw !== 'drops-current-turn') {
        const slice = history.slice(newestUnit.start, newestUnit.end);
        let cost = counter.countMessages(slice);
        if (cost > room) {
          const tools = slice.filter((m) => m.role === 'tool').length;
          const other = counter.countMessages(slice.filter((m) => m.role !== 'tool'));
          const each = Math.max(1, Math.floor((room - other) / Math.max(1, tools)) - 8);
          cost = other;
          slice.forEach((message, offset) => {
            if (message.role !== 'tool') return;
            const text = typeof message.content === 'string' ? message.content : '';
            const short: ChatMessage = {
              role: 'tool',
              tool_call_id: message.tool_call_id,
              content: truncateText(text, each, context),
            };
            replaced.set(newestUnit.start + offset, short);
            truncatedAt.push(newestUnit.start + offset);
            cost += counter.countMessage(short);
          });
        }
        room -= cost;
        take(newestUnit.start, newestUnit.end);
      }
      // then whole units, newest first, while they fit
      for (let u = valid.length - 1; u >= 0; u--) {
        const unit = valid[u]!;
        if (keep.has(unit.start)) continue;
        const cost = counter.countMessages(history.slice(unit.start, unit.end));
        if (cost > room && flaw !== 'exceeds-budget') break;
        room -= cost;
        take(unit.start, unit.end);
      }
      const body: ChatMessage[] = [];
      let splitDone = false;
      for (let i = 0; i < history.length; i++) {
        if (!keep.has(i)) continue;
        const message = replaced.get(i) ?? history[i]!;
        if (flaw === 'splits-groups' && !splitDone && message.role === 'assistant' && message.tool_calls?.length) {
          splitDone = true;
          continue;
        }
        body.push(message);
      }
      const messages = [...head, ...body];
      // reductions: dropped ranges and truncated messages
      const reductions: ReductionRecord[] = [];
      let from = -1;
      for (let i = 0; i <= history.length; i++) {
        const dropped = i < history.length && !keep.has(i);
        if (dropped && from === -1) from = i;
        if (!dropped && from !== -1) {
          reductions.push({
            action: 'dropped',
            from,
            to: i,
            messages: i - from,
            reason: 'outside the window',
            recoverableFrom: 'history',
          });
          from = -1;
        }
      }
      for (const index of truncatedAt)
        reductions.push({
          action: 'truncated',
          from: index,
          to: index + 1,
          messages: 1,
          reason: 'over budget',
          recoverableFrom: 'history',
        });
      const base = {
        agentId: context.agentId,
        sessionId: context.sessionId,
        strategyId: context.strategyId,
        turn: history.filter((m) => m.role === 'user').length,
      };
      const reported = flaw === 'drops-silently' ? [] : reductions;
      const dropped = reported.filter((r) => r.action === 'dropped' || flaw === 'reports-cuts-twice');
      if (dropped.length > 0)
        safeEmit(context.events, 'history-trim', {
          ...base,
          reductions: dropped,
          droppedMessages: dropped.filter((r) => r.action === 'dropped').reduce((s, r) => s + r.messages, 0),
        });
      const cut = reported.filter((r) => r.action === 'truncated');
      if (cut.length > 0 && flaw !== 'cuts-without-event')
        safeEmit(context.events, 'tool-output-trim', { ...base, reductions: cut });
      const output = counter.countMessages(messages) + counter.countTools(tools);
      const input =
        counter.countMessages([...head, ...history.filter((m) => ROLES.has(m.role))]) + counter.countTools(tools);
      const sum = (action: string) => reported.filter((r) => r.action === action).reduce((s, r) => s + r.messages, 0);
      const budget = withUsage(
        computeBudget({
          contextWindow: config.maxContextTokens,
          maxContextTokens: config.maxContextTokens,
          reserveOutputTokens: config.reserveOutputTokens,
        }),
        output,
      );
      return {
        messages,
        tools: [...tools],
        stats: {
          strategyId: context.strategyId,
          model: context.model,
          input_tokens: input,
          output_tokens: output,
          compress_ratio: input === 0 ? 1 : output / input,
          budget,
          sections: {
            system: counter.countMessages(head),
            tools: counter.countTools(tools),
            dynamic: 0,
            memory: 0,
            history: counter.countMessages(body),
          },
          messages: { input: history.length, output: body.length },
          reductions: reported,
          dropped: sum('dropped'),
          trimmed: sum('truncated'),
          summarized: 0,
          compacted: 0,
          usageLevel: usageLevel(output, config.maxContextTokens),
          counter: counter.meta(),
        },
      };
    },
  });
}

const small: ConformanceCase = {
  name: 'small tool conversation',
  family: 'hostile',
  systemPrompt: 'You help.',
  history: [
    { role: 'user', content: 'first question ' + 'word '.repeat(400) },
    {
      role: 'assistant',
      content: null,
      tool_calls: [{ id: 'c1', type: 'function', function: { name: 'run', arguments: '{}' } }],
    },
    { role: 'tool', tool_call_id: 'c1', content: 'output '.repeat(600) },
    { role: 'assistant', content: 'answer one' },
    { role: 'user', content: 'second question' },
    {
      role: 'assistant',
      content: null,
      tool_calls: [{ id: 'c2', type: 'function', function: { name: 'run', arguments: '{}' } }],
    },
    { role: 'tool', tool_call_id: 'c2', content: 'log '.repeat(3000) },
  ],
  tools: [],
  budget: { maxContextTokens: 2048, reserveOutputTokens: 256 },
  steps: [{ kind: 'compose', upTo: 7 }],
  expect: 'payload',
};

const invariantsOf = async (flaw: Flaw, cases: ConformanceCase[] = [small]) =>
  new Set(
    (
      await checkConformance({ plugin: referencePlugin, factory: referenceStrategy(flaw), cases, determinism: false })
    ).failures.map((failure) => failure.invariant),
  );

describe('runConformance', () => {
  // the heuristic counter keeps this self-test fast; plugins run the suite with the default exact counter
  runConformance('reference strategy (newest whole groups that fit)', {
    plugin: referencePlugin,
    factory: referenceStrategy(),
    numRuns: 30,
    context: () => ({ counter: new HeuristicTokenCounter('gpt-4o') }),
  });
});

describe('conformance depth', () => {
  const heuristic = () => ({ counter: new HeuristicTokenCounter('gpt-4o') });
  const saved = process.env.CTXKIT_CONFORMANCE_DEPTH;
  afterEach(() => {
    if (saved === undefined) delete process.env.CTXKIT_CONFORMANCE_DEPTH;
    else process.env.CTXKIT_CONFORMANCE_DEPTH = saved;
  });

  it('replays 8 records per bundled file by default and every record at full depth', async () => {
    delete process.env.CTXKIT_CONFORMANCE_DEPTH;
    const quick = await checkConformance({
      plugin: referencePlugin,
      factory: referenceStrategy(),
      cases: ['conversation'],
      context: heuristic,
    });
    const full = await checkConformance({
      plugin: referencePlugin,
      factory: referenceStrategy(),
      cases: ['conversation'],
      context: heuristic,
      depth: 'full',
    });
    expect(quick.failures).toEqual([]);
    const recordCounts = BUNDLED_CONVERSATIONS.map((name) => loadConversations(name).length);
    expect(quick.cases).toBe(recordCounts.reduce((sum, count) => sum + Math.min(8, count), 0));
    expect(full.cases).toBeGreaterThan(100);
    expect(full.composeCalls).toBeGreaterThan(quick.composeCalls * 10);
  }, 60_000);

  it('takes the depth from CTXKIT_CONFORMANCE_DEPTH and rejects an unknown value with the fix', async () => {
    process.env.CTXKIT_CONFORMANCE_DEPTH = 'full';
    const fromEnvironment = await checkConformance({
      plugin: referencePlugin,
      factory: referenceStrategy(),
      cases: ['conversation'],
      context: heuristic,
      recordsPerFile: 3,
    });
    expect(fromEnvironment.cases).toBe(
      BUNDLED_CONVERSATIONS.map((name) => Math.min(3, loadConversations(name).length)).reduce((a, b) => a + b, 0),
    );
    process.env.CTXKIT_CONFORMANCE_DEPTH = 'deep';
    await expect(
      checkConformance({ plugin: referencePlugin, factory: referenceStrategy(), cases: [small] }),
    ).rejects.toThrow(/use "quick" or "full"/);
  }, 60_000);
});

describe('checkConformance', () => {
  describe('#catches broken strategies', () => {
    it('passes the reference strategy on the hand-made case', async () => {
      expect(
        (await checkConformance({ plugin: referencePlugin, factory: referenceStrategy(), cases: [small] })).failures,
      ).toEqual([]);
    });

    it('reports a strategy that mutates the history', async () => {
      expect(await invariantsOf('mutates-history')).toContain('immutability');
    });

    it('reports a strategy that splits a tool-call group', async () => {
      const failures = (
        await checkConformance({
          plugin: referencePlugin,
          factory: referenceStrategy('splits-groups'),
          cases: [small],
          determinism: false,
        })
      ).failures;
      expect(failures.some((f) => f.invariant === 'validity' && /orphan-tool-result/.test(f.message))).toBe(true);
    });

    it('reports a strategy that exceeds the budget', async () => {
      const invariants = await invariantsOf('exceeds-budget', [small, ...budgetCases()]);
      expect(invariants).toContain('budget');
    });

    it('reports a strategy that drops history silently', async () => {
      const invariants = await invariantsOf('drops-silently');
      expect(invariants).toContain('reporting');
      expect(invariants).toContain('events');
    });

    it('reports a strategy whose reductions are not reported by exactly one event each', async () => {
      for (const flaw of ['reports-cuts-twice', 'cuts-without-event'] as const) {
        const failures = (
          await checkConformance({
            plugin: referencePlugin,
            factory: referenceStrategy(flaw),
            cases: [small],
            determinism: false,
          })
        ).failures;
        expect(
          failures.some(
            (f) =>
              f.invariant === 'events' &&
              /"action":"truncated".*exactly one event, here tool-output-trim/.test(f.message),
          ),
        ).toBe(true);
      }
    });

    it('reports a strategy that throws a plain Error on overflow', async () => {
      const failures = (
        await checkConformance({
          plugin: referencePlugin,
          factory: referenceStrategy('plain-error'),
          cases: budgetCases(),
          determinism: false,
        })
      ).failures;
      expect(failures.map((f) => f.invariant)).toEqual(['errors', 'errors']);
      expect(failures[0]!.message).toMatch(/generic error/);
    });

    it('reports a strategy that drops the current turn whole', async () => {
      const failures = (
        await checkConformance({
          plugin: referencePlugin,
          factory: referenceStrategy('drops-current-turn'),
          cases: [small],
          determinism: false,
        })
      ).failures;
      expect(failures.some((f) => /current turn was dropped/.test(f.message))).toBe(true);
    });

    it('reports a strategy that is not deterministic', async () => {
      let calls = 0;
      const factory: StrategyFactory<ReferenceConfig> = (config, context) => {
        const inner = referenceStrategy()(config, context) as IContextManager;
        const offset = calls++;
        return {
          onTurnComplete: inner.onTurnComplete,
          composePayload: async (s, h, t, r) => inner.composePayload(s + (offset % 2 === 0 ? '' : ' '), h, t, r),
        };
      };
      const failures = (await checkConformance({ plugin: referencePlugin, factory, cases: [small] })).failures;
      expect(failures.map((f) => f.invariant)).toContain('determinism');
    });

    it('requires a typed error for an unknown role', async () => {
      const unknownRole = hostileCases().find((c) => c.name === 'unknown role')!;
      const passThrough: StrategyFactory<ReferenceConfig> = () => ({
        onTurnComplete: async () => {},
        composePayload: async (systemPrompt, history, tools) => {
          const inner = referenceStrategy();
          return (
            inner(
              { maxContextTokens: 8192, reserveOutputTokens: 1024 },
              { ...contextStub(), strategyId: 'x' },
            ) as IContextManager
          ).composePayload(
            systemPrompt,
            history.filter((m) => m.role !== ('developer' as string)),
            tools,
          );
        },
      });
      const failures = (
        await checkConformance({
          plugin: referencePlugin,
          factory: passThrough,
          cases: [unknownRole],
          determinism: false,
        })
      ).failures;
      expect(failures.some((f) => f.invariant === 'errors' && /typed CtxkitError/.test(f.message))).toBe(true);
    });
  });
});

function contextStub(): StrategyContext {
  const counter = new HeuristicTokenCounter('gpt-4o');
  return {
    agentId: 'a',
    sessionId: 's',
    strategyId: 'x',
    model: 'gpt-4o',
    counter,
    counterFor: () => counter,
    models: undefined as never,
    store: undefined as never,
    events: { emit: () => true } as never,
    llm: undefined,
    now: () => 0,
  };
}

describe('checkPayload', () => {
  describe('#priority', () => {
    it('reports a payload whose first message is not the unaltered system prompt', () => {
      const history: ChatMessage[] = freezeDeep([{ role: 'user', content: 'hi' }]);
      const counter = new HeuristicTokenCounter('gpt-4o');
      const failures = checkPayload(
        {
          systemPrompt: 'S',
          history,
          tools: [],
          budget: { maxContextTokens: 1000, reserveOutputTokens: 100 },
          counter,
        },
        {
          payload: {
            messages: [{ role: 'system', content: 'S (edited)' }, ...history],
            tools: [],
            stats: {
              output_tokens: counter.countMessages([{ role: 'system', content: 'S (edited)' }, ...history]),
              input_tokens: 1,
              compress_ratio: 0,
              reductions: [],
              dropped: 0,
              trimmed: 0,
              summarized: 0,
              compacted: 0,
            } as never,
          },
          events: [],
        },
      );
      expect(failures.map((f) => f.invariant)).toEqual(expect.arrayContaining(['priority', 'stats']));
    });
  });

  describe('#opaque provider items', () => {
    const history: ChatMessage[] = freezeDeep(opaqueItemMessages());
    const counter = new HeuristicTokenCounter('gpt-4o');
    const check = (messages: ChatMessage[]) =>
      checkPayload(
        {
          systemPrompt: 'S',
          history,
          tools: [],
          budget: { maxContextTokens: 100_000, reserveOutputTokens: 100 },
          counter,
        },
        {
          payload: {
            messages,
            tools: [],
            stats: {
              output_tokens: counter.countMessages(messages),
              input_tokens: counter.countMessages(messages),
              compress_ratio: 1,
              reductions: [],
              dropped: 0,
              trimmed: 0,
              summarized: 0,
              compacted: 0,
            } as never,
          },
          events: [],
        },
      ).filter((failure) => failure.invariant === 'validity');

    it('accepts them on their message as they came, and reports them reordered, edited or split', () => {
      const system: ChatMessage = { role: 'system', content: 'S' };
      expect(check([system, ...history])).toEqual([]);
      const assistant = history[1] as Extract<ChatMessage, { role: 'assistant' }>;
      const items = assistant.reasoning!;
      for (const reasoning of [
        [...items].reverse(),
        [{ ...items[0]!, data: { ...items[0]!.data, signature: 'edited' } }, ...items.slice(1)],
        items.slice(1),
      ]) {
        const failures = check([system, history[0]!, { ...assistant, reasoning }, ...history.slice(2)]);
        expect(failures.map((failure) => failure.message)).toEqual([
          expect.stringContaining('payload[2] carries opaque provider items'),
        ]);
      }
    });
  });
});

describe('checkPayload: messages repeated verbatim in the history', () => {
  // Three turns whose assistant call and tool result are the same messages (the same call id);
  // the payload keeps the first turn in front of a cut and the newest, and reports the middle one dropped.
  const turn = (n: number): ChatMessage[] => [
    { role: 'user', content: `question ${n}` },
    {
      role: 'assistant',
      content: null,
      tool_calls: [{ id: 'call_same', type: 'function', function: { name: 'lookup', arguments: '{}' } }],
    },
    { role: 'tool', tool_call_id: 'call_same', content: 'the same result' },
  ];
  const history: ChatMessage[] = freezeDeep([...turn(0), ...turn(1), ...turn(2), { role: 'user', content: 'thanks' }]);
  const counter = new HeuristicTokenCounter('gpt-4o');
  const reporting = (kept: ChatMessage[], reductions: ReductionRecord[]) => {
    const messages: ChatMessage[] = [{ role: 'system', content: 'S' }, ...kept];
    const tokens = counter.countMessages(messages);
    const stats = {
      output_tokens: tokens,
      input_tokens: counter.countMessages([{ role: 'system', content: 'S' }, ...history]),
      reductions,
      dropped: 3,
      trimmed: 0,
      summarized: 0,
      compacted: 0,
    };
    return checkPayload(
      {
        systemPrompt: 'S',
        history,
        tools: [],
        budget: { maxContextTokens: 100_000, reserveOutputTokens: 100 },
        counter,
      },
      {
        payload: {
          messages,
          tools: [],
          stats: { ...stats, compress_ratio: stats.output_tokens / stats.input_tokens } as never,
        },
        events: [{ name: 'history-trim', payload: { reductions } } as never],
      },
    ).filter((failure) => failure.invariant === 'reporting');
  };

  it('matches a kept head to the copies the payload kept, not to the reported dropped ones after it', () => {
    const dropped: ReductionRecord = {
      action: 'dropped',
      from: 3,
      to: 6,
      messages: 3,
      tokensAfter: 0,
      reason: 'older than the window',
    } as ReductionRecord;
    expect(reporting([...history.slice(0, 3), ...history.slice(6)], [dropped])).toEqual([]);
  });

  it('still reports a kept head whose dropped middle has no record', () => {
    expect(reporting([...history.slice(0, 3), ...history.slice(6)], []).map((failure) => failure.message)).toEqual([
      expect.stringContaining('are absent or altered in the payload, but no stats.reductions record covers them'),
    ]);
  });
});

describe('a plugin named by its directory', () => {
  const seen: Array<Record<string, unknown>> = [];
  const recording: StrategyFactory<ReferenceConfig> = (config, context) => {
    seen.push(config as unknown as Record<string, unknown>);
    return referenceStrategy()(config, context);
  };
  const dir = referencePlugin;

  // The built entry the loader imports hands over to the factory this test registers.
  beforeAll(() => ((globalThis as Record<string, unknown>).__ctxkitConformanceFactory = recording));
  afterAll(() => delete (globalThis as Record<string, unknown>).__ctxkitConformanceFactory);
  beforeEach(() => (seen.length = 0));

  it(
    'loads the entry through the runtime loader and validates each case config by the plugin schema, defaults ' +
      'applied',
    async () => {
      const report = await checkConformance<ReferenceConfig>({ plugin: dir, cases: [small] });
      expect(report.failures).toEqual([]);
      expect(seen.length).toBeGreaterThan(0);
      expect(seen[0]).toEqual({ ...small.budget, label: 'plain' });
    },
  );

  it(
    'tests a given factory (sources) with the plugin manifest and schema, and refuses a config the schema ' + 'refuses',
    async () => {
      const report = await checkConformance<ReferenceConfig & { label: string }>({
        plugin: path.join(dir, 'plugin.json'),
        factory: recording,
        config: { label: 'mine' },
        cases: [small],
      });
      expect(report.failures).toEqual([]);
      expect(seen[0]).toMatchObject({ label: 'mine' });
      await expect(
        checkConformance<ReferenceConfig & { label: unknown }>({ plugin: dir, config: { label: 42 }, cases: [small] }),
      ).rejects.toMatchObject({ code: 'CTXKIT_CONFIG_INVALID' });
    },
  );

  it('asks for the plugin when given none, also with a bare factory', async () => {
    const withoutPlugin = { factory: referenceStrategy(), cases: [small] } as unknown as Parameters<
      typeof checkConformance
    >[0];
    await expect(checkConformance(withoutPlugin)).rejects.toThrow(/pass plugin, the directory holding its plugin.json/);
  });

  it('refuses a directory that holds no plugin', async () => {
    const empty = fs.mkdtempSync(path.join(os.tmpdir(), 'ctxkit-conformance-empty-'));
    try {
      await expect(checkConformance({ plugin: empty, factory: referenceStrategy(), cases: [small] })).rejects.toThrow(
        /holds 0 strategy plugins/,
      );
    } finally {
      fs.rmSync(empty, { recursive: true, force: true });
    }
  });
});
