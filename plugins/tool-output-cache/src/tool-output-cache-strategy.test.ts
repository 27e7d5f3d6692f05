import {
  type ChatMessage,
  conversationCacheKey,
  CtxkitError,
  ErrorCodes,
  type ILLMClient,
  type LLMCompletionRequest,
  LLMRequestError,
  ProviderPayloadError,
  type ToolMessage,
} from '@ctxkit/core';
import { findPayloadProblems } from '@ctxkit/core/strategy-kit';
import { createConformanceContext, freezeDeep, loadConversations, ScriptedLLMClient } from '@ctxkit/core/testing';

import { ToolOutputCache } from './cache/tool-output-cache';
import { buildCompactionRequest, compactMessages } from './compaction/compact-messages';
import { COMPACTION_PREAMBLE } from './compaction/compaction-memory';
import { call, exchange, output } from './test-support';
import { createStrategy, type ToolOutputCacheStrategy } from './tool-output-cache-strategy';
import {
  resolveToolOutputCacheStrategyConfig,
  type ToolOutputCacheStrategyConfig,
} from './tool-output-cache-strategy-config';

/** The compaction's retain + summary as the payload's memory block sends them: a framed user message. */
const COMPACTED_BLOCK =
  `${COMPACTION_PREAMBLE}\n<compaction_summary>\nids: ISSUE-7, file src/main.c\n\nThe agent ` +
  `read the build logs and is fixing src/main.c.\n</compaction_summary>`;

const SYSTEM = 'You are a coding agent.';
const usage = (total: number) => ({
  input_tokens: total,
  output_tokens: 0,
  cache_creation_tokens: 0,
  cache_read_tokens: 0,
  total_tokens: total,
});

function setup(config: ToolOutputCacheStrategyConfig, llm?: ILLMClient) {
  const recording = createConformanceContext(
    'session-1',
    { agentId: 'agent-1', strategyId: 'std-tool-output-cache-strategy', llm },
    undefined,
  );
  const strategy = createStrategy(config, recording.context);
  const names = () => recording.events.map((event) => event.name);
  return { strategy, context: recording.context, events: recording.events, names };
}

function tool(strategy: ToolOutputCacheStrategy, name: string) {
  const found = strategy.contributedTools().find((candidate) => candidate.definition.function.name === name);
  if (!found) throw new Error(`no tool ${name}`);
  return (args: unknown) => found.execute(args, { agentId: 'agent-1', sessionId: 'session-1', toolCallId: 'x' });
}

/** Rebuilds an output through tool_output_cache, page by page. */
async function expand(strategy: ToolOutputCacheStrategy, refId: string): Promise<string> {
  const read = tool(strategy, 'tool_output_cache');
  const lines: string[] = [];
  let offset = 1;
  for (;;) {
    const answer = await read({ ref_id: refId, offset });
    const rows = answer.split('\n').filter((row) => /^ *\d+\t/.test(row));
    lines.push(...rows.map((row) => row.replace(/^ *\d+\t/, '')));
    const more = /\[more: continue with offset=(\d+)\]$/.exec(answer);
    if (!more || rows.length === 0) break;
    offset = Number(more[1]);
  }
  return lines.join('\n');
}

const summaryReply =
  '<retain>ids: ISSUE-7, file src/main.c</retain>\n<summary>The agent read the build logs and is fixing ' +
  'src/main.c.</summary>';

function longHistory(exchanges: number, linesEach: number): ChatMessage[] {
  const history: ChatMessage[] = [{ role: 'user', content: 'Fix the build.' }];
  for (let index = 0; index < exchanges; index++)
    history.push(...exchange(`c${index}`, output(`out${index}`, linesEach)));
  history.push({ role: 'assistant', content: 'Looking further.' }, { role: 'user', content: 'Go on.' });
  return history;
}

describe('ToolOutputCacheStrategy', () => {
  describe('checkpoints', () => {
    it('checkpoint 1: trims the oldest outputs when the total passes the budget', async () => {
      const { strategy, events } = setup({
        toolOutputCache: { contextBudgetTokens: 1500 },
        microCompact: { enabled: false },
        compaction: { enabled: false },
      });
      const history = longHistory(5, 20);
      const payload = await strategy.composePayload(SYSTEM, history, []);
      const toolMessages = payload.messages.filter((message): message is ToolMessage => message.role === 'tool');
      const trimmed = toolMessages.filter(
        (message) => message.content === `[tool output trimmed; ref=${message.output_ref!.id}]`,
      );
      expect(trimmed.length).toBeGreaterThan(0);
      // Oldest first: every trimmed output comes before every kept one.
      const firstKept = toolMessages.findIndex((message) => !trimmed.includes(message));
      expect(toolMessages.slice(firstKept).every((message) => !trimmed.includes(message))).toBe(true);
      expect(toolMessages[toolMessages.length - 1]!.content).toBe((history[history.length - 3] as ToolMessage).content);
      const records = payload.stats.reductions.filter((record) => record.action === 'trimmed');
      expect(records.reduce((sum, record) => sum + record.messages, 0)).toBe(trimmed.length);
      expect(
        records.every(
          (record) => record.recoverableFrom === 'tool-output-cache' && record.refs!.length === record.messages,
        ),
      ).toBe(true);
      expect(events.some((event) => event.name === 'tool-output-trim')).toBe(true);
      for (const message of trimmed) {
        const index = history.findIndex(
          (candidate) => candidate.role === 'tool' && candidate.tool_call_id === message.tool_call_id,
        );
        expect(await expand(strategy, message.output_ref!.id)).toBe((history[index] as ToolMessage).content);
      }
    });

    it('checkpoint 2: a trimmed tool message serializes to the placeholder', async () => {
      const { strategy } = setup({
        toolOutputCache: { contextBudgetTokens: 300 },
        microCompact: { enabled: false },
        compaction: { enabled: false },
      });
      const payload = await strategy.composePayload(SYSTEM, longHistory(3, 20), []);
      const wire = JSON.parse(JSON.stringify(payload.messages)) as ChatMessage[];
      const first = wire.find((message): message is ToolMessage => message.role === 'tool')!;
      expect(first).toEqual({
        role: 'tool',
        tool_call_id: 'c0',
        content: `[tool output trimmed; ref=${first.output_ref!.id}]`,
        output_ref: { id: first.output_ref!.id, byte_size: expect.any(Number), line_count: 20 },
      });
      expect(first.output_ref!.id).toMatch(/^to_[0-9a-f]{32}$/);
    });

    it('checkpoint 3: compaction replaces history with retain + summary past the threshold', async () => {
      const llm = new ScriptedLLMClient([summaryReply]);
      const { strategy, names } = setup(
        { model: 'gpt-4o', maxContextTokens: 8000, compaction: { thresholdRatio: 0.8 } },
        llm,
      );
      const history = longHistory(4, 10);
      const below = await strategy.checkCompaction('after-llm-call', history, usage(6000));
      expect(below.compacted).toBe(false);
      const result = await strategy.checkCompaction('after-llm-call', history, usage(6400));
      expect(result.compacted).toBe(true);
      expect(result.messages).toEqual([
        { role: 'user', content: 'ids: ISSUE-7, file src/main.c' },
        { role: 'user', content: 'The agent read the build logs and is fixing src/main.c.' },
        { role: 'user', content: 'Go on.' },
      ]);
      expect(llm.requests).toHaveLength(1);
      expect(llm.requests[0]!.tools ?? null).toBeNull();
      expect(names()).toEqual(expect.arrayContaining(['compaction-start', 'compaction-end']));
      // The caller keeps passing its full history: it receives the compacted view.
      const payload = await strategy.composePayload(SYSTEM, [...history, { role: 'assistant', content: 'Done.' }], []);
      // The retain + summary are the memory block, right after the system prompt, in a user message.
      expect(payload.messages.map((message) => message.content)).toEqual([SYSTEM, COMPACTED_BLOCK, 'Go on.', 'Done.']);
      expect(payload.messages[1]!.role).toBe('user');
      expect(payload.stats.reductions).toContainEqual(
        expect.objectContaining({
          action: 'compacted',
          from: 0,
          to: history.length - 1,
          recoverableFrom: 'transcript',
        }),
      );
      // A caller that adopted the compacted history gets the same payload.
      const adopted = await strategy.composePayload(
        SYSTEM,
        [...result.messages!, { role: 'assistant', content: 'Done.' }],
        [],
      );
      expect(adopted.messages).toEqual(payload.messages);
    });

    it('checkpoint 4: reproduces the provider error when a trailing assistant tool_calls is not stripped', async () => {
      const provider: ILLMClient = {
        name: 'strict-provider',
        defaultModel: 'gpt-4o',
        offline: true,
        async complete(request: LLMCompletionRequest) {
          const problems = findPayloadProblems(request.messages);
          if (problems.length > 0)
            throw new ProviderPayloadError(
              'openai',
              problems.map((problem) => problem.problem),
            );
          return {
            message: { role: 'assistant', content: summaryReply },
            text: summaryReply,
            usage: usage(10),
            model: request.model ?? 'gpt-4o',
          };
        },
      };
      const config = resolveToolOutputCacheStrategyConfig({}).compaction;
      const history: ChatMessage[] = [
        { role: 'user', content: 'Fix it.' },
        ...exchange('a', 'ok'),
        { role: 'assistant', content: 'Next I run the tests.', tool_calls: [call('b')] },
      ];
      const unstripped = buildCompactionRequest(history, {
        callerModel: 'gpt-4o',
        config,
        stripTrailingToolCalls: false,
      });
      expect(findPayloadProblems(unstripped.messages).map((problem) => problem.problem)).toEqual([
        'missing-tool-result',
      ]);
      const error = await compactMessages(history, {
        llm: provider,
        callerModel: 'gpt-4o',
        config,
        stripTrailingToolCalls: false,
      }).catch((caught: unknown) => caught);
      expect(CtxkitError.isInstance(error) && error.code).toBe(ErrorCodes.PROVIDER_PAYLOAD_INVALID);

      const kept = await compactMessages(history, { llm: provider, callerModel: 'gpt-4o', config });
      expect(kept.summary).toBe('The agent read the build logs and is fixing src/main.c.');
      expect(kept.request.messages[kept.request.messages.length - 2]).toEqual({
        role: 'assistant',
        content: 'Next I run the tests.',
      });
      const noContent = [
        ...history.slice(0, -1),
        { role: 'assistant' as const, content: null, tool_calls: [call('b')] },
      ];
      const dropped = await compactMessages(noContent, { llm: provider, callerModel: 'gpt-4o', config });
      expect(dropped.request.messages.slice(0, -1)).toEqual(noContent.slice(0, -1));
      // Neither the interrupt nor the reply enters the history through the strategy.
      const { strategy } = setup({ maxContextTokens: 8000 }, provider);
      const longer: ChatMessage[] = [
        { role: 'user', content: 'Fix it.' },
        ...exchange('a', output('log', 40)),
        { role: 'user', content: 'Now test.' },
        history[history.length - 1]!,
      ];
      const result = await strategy.checkCompaction('after-llm-call', longer, usage(7000));
      expect(result.messages!.some((message) => String(message.content).includes('about to be compacted'))).toBe(false);
      expect(result.messages!.some((message) => String(message.content).includes('<summary>'))).toBe(false);
      expect(result.messages!.slice(2)).toEqual([{ role: 'user', content: 'Now test.' }, history[history.length - 1]]);
    });
  });

  describe("compaction request and the conversation's prompt cache", () => {
    it(
      "carries the interrupt as the continuation of the conversation's last turn, under its cache key, and the " +
        'whole request for other clients',
      async () => {
        const requests: LLMCompletionRequest[] = [];
        const provider: ILLMClient = {
          name: 'recording-provider',
          defaultModel: 'gpt-4o',
          offline: false,
          async complete(request: LLMCompletionRequest) {
            requests.push(request);
            return {
              message: { role: 'assistant', content: summaryReply },
              text: summaryReply,
              usage: usage(10),
              model: request.model ?? 'gpt-4o',
            };
          },
        };
        const history: ChatMessage[] = [
          { role: 'user', content: 'Fix it.' },
          ...exchange('a', output('log', 40)),
          { role: 'user', content: 'Now test.' },
        ];
        await setup({ maxContextTokens: 8000 }, provider).strategy.checkCompaction(
          'after-llm-call',
          history,
          usage(7000),
        );
        expect(requests).toHaveLength(1);
        const [request] = requests;
        expect(request!.cacheKey).toBe(conversationCacheKey('agent-1', 'session-1'));
        expect(request!.continuation).toEqual([request!.messages.at(-1)]);
        expect(String(request!.messages.at(-1)!.content)).toContain('about to be compacted');
        expect(request!.messages.slice(0, -1).some((message) => message.content === 'Fix it.')).toBe(true);

        // With no turn kept verbatim the newest messages may be newer than the last turn's request: the request stands
        // alone.
        requests.length = 0;
        await setup({ maxContextTokens: 8000, compaction: { retainLastTurns: 0 } }, provider).strategy.checkCompaction(
          'after-llm-call',
          history,
          usage(7000),
        );
        expect(requests[0]).not.toHaveProperty('continuation');
        expect(requests[0]).not.toHaveProperty('cacheKey');
      },
    );
  });

  describe('#composePayload', () => {
    describe('under pressure only', () => {
      const history = (): ChatMessage[] => {
        const messages: ChatMessage[] = [{ role: 'user', content: 'Read the logs.' }];
        for (let index = 0; index < 6; index++) messages.push(...exchange(`p${index}`, output(`log${index}`, 20)));
        messages.push({ role: 'assistant', content: 'Read them all.' }, { role: 'user', content: 'Now fix it.' });
        return messages;
      };
      // Only as much as needed, on every call (cutBackRatio 1).
      const exact = {
        reserveOutputTokens: 0,
        safetyMarginRatio: 0,
        cutBackRatio: 1,
        compaction: { enabled: false },
      } as const;

      it(
        'sends every output whole while the payload fits: no placeholder, no micro-compact, no expand ' + 'tools',
        async () => {
          const { strategy, names } = setup({ ...exact, maxContextTokens: 100000 });
          const given = history();
          const payload = await strategy.composePayload(SYSTEM, given, []);
          expect(payload.messages.slice(1).map((message) => message.content)).toEqual(
            given.map((message) => message.content),
          );
          expect(payload.stats.reductions).toEqual([]);
          expect(payload.tools).toEqual([]);
          expect(payload.stats.extra).toMatchObject({ toolOutputCache: { underPressure: false, toolsOffered: false } });
          expect(names()).not.toContain('tool-output-trim');
        },
      );

      it('trims older outputs oldest first, only as many as needed, when the payload would not fit', async () => {
        const given = history();
        const roomy = await setup({ ...exact, maxContextTokens: 100000 }).strategy.composePayload(SYSTEM, given, []);
        const { strategy, names } = setup({ ...exact, maxContextTokens: roomy.stats.budget.used - 100 });
        const payload = await strategy.composePayload(SYSTEM, given, []);
        const tools = payload.messages.filter((message): message is ToolMessage => message.role === 'tool');
        const trimmed = tools.filter(
          (message) => message.content === `[tool output trimmed; ref=${message.output_ref!.id}]`,
        );
        // Some, not all: the oldest ones, and nothing older than the window is dropped.
        expect(trimmed.length).toBeGreaterThan(0);
        expect(trimmed.length).toBeLessThan(tools.length);
        expect(tools.slice(0, trimmed.length)).toEqual(trimmed);
        expect(tools.slice(trimmed.length).map((message) => message.content)).toEqual(
          given
            .filter((message) => message.role === 'tool')
            .slice(trimmed.length)
            .map((message) => message.content),
        );
        expect(payload.stats.reductions.some((record) => record.action === 'dropped')).toBe(false);
        expect(
          payload.stats.reductions
            .filter((record) => record.action === 'trimmed')
            .reduce((sum, record) => sum + record.messages, 0),
        ).toBe(trimmed.length);
        expect(payload.stats.budget.used).toBeLessThanOrEqual(payload.stats.budget.available);
        // A placeholder names a ref: the expand and grep tools come with it.
        expect(payload.tools.map((definition) => definition.function.name)).toEqual([
          'tool_output_cache',
          'tool_output_cache_grep',
        ]);
        expect(payload.stats.extra).toMatchObject({ toolOutputCache: { underPressure: true, toolsOffered: true } });
        expect(names()).toContain('tool-output-trim');
        for (const message of trimmed) {
          const original = given.find(
            (candidate): candidate is ToolMessage =>
              candidate.role === 'tool' && candidate.tool_call_id === message.tool_call_id,
          )!;
          expect(await expand(strategy, message.output_ref!.id)).toBe(original.content);
        }
      });

      it(
        'fills the room it freed: older outputs that fit again beside the newest are not left as ' + 'placeholders',
        async () => {
          // Three small outputs, then one of about 1,200 tokens, then the current turn. Oldest first,
          // the small ones alone do not make room: the large one has to go, and then the small ones fit again.
          const given: ChatMessage[] = [{ role: 'user', content: 'Read the logs.' }];
          for (let index = 0; index < 3; index++) given.push(...exchange(`s${index}`, output(`small${index}`, 5)));
          given.push(
            ...exchange('big', output('big', 60)),
            { role: 'assistant', content: 'Read them all.' },
            { role: 'user', content: 'Now fix it.' },
          );
          const probe = setup({ ...exact, maxContextTokens: 100000 });
          const roomy = await probe.strategy.composePayload(SYSTEM, given, []);
          const { strategy, context } = setup({
            ...exact,
            maxContextTokens: roomy.stats.budget.used - Math.floor(probe.context.counter.countMessage(given[8]!) / 2),
          });
          const payload = await strategy.composePayload(SYSTEM, given, []);
          const tools = payload.messages.filter((message): message is ToolMessage => message.role === 'tool');
          const placeholder = (message: ToolMessage) =>
            message.content === `[tool output trimmed; ref=${message.output_ref!.id}]`;
          expect(tools.map(placeholder)).toEqual([false, false, false, true]);
          expect(tools.slice(0, 3).map((message) => message.content)).toEqual(
            [0, 1, 2].map((index) => output(`small${index}`, 5)),
          );
          // No placeholder is left whose output would fit the room that is left.
          for (const message of tools.filter(placeholder)) {
            const original = given.find(
              (candidate): candidate is ToolMessage =>
                candidate.role === 'tool' && candidate.tool_call_id === message.tool_call_id,
            )!;
            expect(
              context.counter.countMessage({ ...message, content: original.content }) -
                context.counter.countMessage(message),
            ).toBeGreaterThan(payload.stats.budget.remaining);
          }
          expect(payload.stats.reductions).toEqual([
            expect.objectContaining({
              action: 'trimmed',
              from: 8,
              to: 9,
              reason: 'tool output trimmed to fit the context window',
            }),
          ]);
          expect(payload.stats.budget.used).toBeLessThanOrEqual(payload.stats.budget.available);
          expect(findPayloadProblems(payload.messages)).toEqual([]);
          expect(payload.tools.map((definition) => definition.function.name)).toEqual([
            'tool_output_cache',
            'tool_output_cache_grep',
          ]);
        },
      );

      it('micro-compacts results the cache does not hold only under pressure', async () => {
        const given = history();
        const off = { ...exact, toolOutputCache: { enabled: false } };
        const roomy = await setup({ ...off, maxContextTokens: 100000 }).strategy.composePayload(SYSTEM, given, []);
        expect(roomy.stats.reductions).toEqual([]);
        const payload = await setup({
          ...off,
          maxContextTokens: roomy.stats.budget.used - 100,
        }).strategy.composePayload(SYSTEM, given, []);
        const tools = payload.messages.filter((message): message is ToolMessage => message.role === 'tool');
        expect(tools[0]!.content).toBe('[Previous: used execute_bash]');
        expect(tools[tools.length - 1]!.content).toBe(output('log5', 20));
        expect(payload.stats.reductions).toContainEqual(
          expect.objectContaining({ action: 'micro-compacted', from: 2, recoverableFrom: 'history' }),
        );
        expect(payload.tools).toEqual([]);
      });

      it(
        'in a room too small for the expand tools, micro-compacts older outputs instead and offers no ' + 'tools',
        async () => {
          const given = history();
          // A 600-token room: the expand tools (about 200 tokens) would take more than a quarter of it.
          const { strategy } = setup({ ...exact, maxContextTokens: 600 });
          expect(strategy.contributedTools().length).toBe(2);
          const payload = await strategy.composePayload(SYSTEM, given, []);
          const tools = payload.messages.filter((message): message is ToolMessage => message.role === 'tool');
          expect(payload.tools).toEqual([]);
          expect(tools[0]!.output_ref).toBeDefined();
          // The placeholder names the ref, which reads the whole output back.
          expect(tools[0]!.content).toBe(`[Previous: used execute_bash; ref=${tools[0]!.output_ref!.id}]`);
          expect(await expand(strategy, tools[0]!.output_ref!.id)).toBe(output('log0', 20));
          expect(payload.stats.reductions).toContainEqual(
            expect.objectContaining({ action: 'micro-compacted', recoverableFrom: 'tool-output-cache' }),
          );
          expect(payload.stats.extra).toMatchObject({ toolOutputCache: { underPressure: true, toolsOffered: false } });
        },
      );

      it(
        'with offerTools "always", offers the expand tools from the first payload on, so the tool list never ' +
          'changes when outputs start to be trimmed',
        async () => {
          const given = history();
          const always = { ...exact, toolOutputCache: { offerTools: 'always' as const } };
          const roomy = await setup({ ...exact, maxContextTokens: 100000 }).strategy.composePayload(SYSTEM, given, []);
          const wholeHistory = roomy.stats.budget.used;
          // A budget the whole history fits in only without the tools: the first payload fits, the next has to trim.
          const { strategy } = setup({ ...always, maxContextTokens: wholeHistory + 60 });
          const first = await strategy.composePayload(SYSTEM, given.slice(0, 3), []);
          expect(first.stats.reductions).toEqual([]);
          expect(first.tools.map((definition) => definition.function.name)).toEqual([
            'tool_output_cache',
            'tool_output_cache_grep',
          ]);
          expect(first.stats.extra).toMatchObject({ toolOutputCache: { underPressure: false, toolsOffered: true } });
          const later = await strategy.composePayload(SYSTEM, given, []);
          expect(later.stats.reductions.some((record) => record.action === 'trimmed')).toBe(true);
          expect(later.tools).toEqual(first.tools);
          expect(later.stats.budget.used).toBeLessThanOrEqual(later.stats.budget.available);
          // By default the same first payload carries no tool: they come with the first trimmed output.
          const byDefault = await setup({ ...exact, maxContextTokens: wholeHistory + 60 }).strategy.composePayload(
            SYSTEM,
            given.slice(0, 3),
            [],
          );
          expect(byDefault.tools).toEqual([]);
          // Where they would take more than a quarter of the room, "always" offers them no more than the default does.
          expect(
            (await setup({ ...always, maxContextTokens: 600 }).strategy.composePayload(SYSTEM, given, [])).tools,
          ).toEqual([]);
        },
      );

      it('offers compact while compaction is on and a model is there to write the summary', async () => {
        const names = async (config: ToolOutputCacheStrategyConfig, llm?: ILLMClient) =>
          (
            await setup({ maxContextTokens: 100000, ...config }, llm).strategy.composePayload(SYSTEM, history(), [])
          ).tools.map((definition) => definition.function.name);
        expect(await names({}, new ScriptedLLMClient([summaryReply]))).toEqual(['compact']);
        expect(await names({ compaction: { enabled: false } }, new ScriptedLLMClient([summaryReply]))).toEqual([]);
        expect(await names({})).toEqual([]);
      });

      it(
        'leaves out its own definitions a host passes in until they are useful, and keeps a user tool of the same ' +
          'name',
        async () => {
          const { strategy } = setup({ ...exact, maxContextTokens: 100000 });
          const own = strategy.contributedTools().map((tool) => structuredClone(tool.definition));
          const payload = await strategy.composePayload(SYSTEM, history(), own);
          expect(payload.tools).toEqual([]);
          const userTool = {
            type: 'function' as const,
            function: { name: 'tool_output_cache', description: 'A user tool.' },
          };
          const withUserTool = await strategy.composePayload(SYSTEM, history(), [userTool]);
          expect(withUserTool.tools).toEqual([userTool]);
        },
      );
    });

    it('caches each tool output once and sets output_ref on a copy', async () => {
      const { strategy, context, names } = setup({ compaction: { enabled: false } });
      const history = freezeDeep(longHistory(2, 5));
      const first = await strategy.composePayload(SYSTEM, history, []);
      await strategy.composePayload(SYSTEM, history, []);
      await strategy.onTurnComplete(history);
      expect(names().filter((name) => name === 'tool-output-cached')).toHaveLength(2);
      expect((history[2] as ToolMessage).output_ref).toBeUndefined();
      const tools = first.messages.filter((message): message is ToolMessage => message.role === 'tool');
      expect(tools.every((message) => message.output_ref?.line_count === 5)).toBe(true);
      expect(
        await context.store.listBlobs({ agentId: 'agent-1', sessionId: 'session-1', kind: 'tool-output' }),
      ).toHaveLength(2);
      // Every output is shown whole: the expand and grep tools are not offered.
      expect(first.tools).toEqual([]);
    });

    it(
      'micro-compacts results older than the last keepRecent at every payload with when: always, and keeps their ' +
        'refs',
      async () => {
        const { strategy } = setup({ compaction: { enabled: false }, microCompact: { when: 'always' } });
        const history: ChatMessage[] = [{ role: 'user', content: 'Read the files.' }];
        for (let index = 0; index < 5; index++)
          history.push(
            ...exchange(`r${index}`, output(`file${index}`, 3), index % 2 ? 'str_replace_editor' : 'execute_bash'),
          );
        history.push(...exchange('short', 'ok'), { role: 'user', content: 'Next.' });
        const payload = await strategy.composePayload(SYSTEM, history, []);
        const tools = payload.messages.filter((message): message is ToolMessage => message.role === 'tool');
        expect(tools.map((message) => message.content)).toEqual([
          `[Previous: used execute_bash; ref=${tools[0]!.output_ref?.id}]`,
          `[Previous: used str_replace_editor; ref=${tools[1]!.output_ref?.id}]`,
          `[Previous: used execute_bash; ref=${tools[2]!.output_ref?.id}]`,
          output('file3', 3),
          output('file4', 3),
          'ok',
        ]);
        expect(tools.slice(0, 3).every((message) => message.output_ref !== undefined)).toBe(true);
        expect(await expand(strategy, tools[0]!.output_ref!.id)).toBe(output('file0', 3));
        expect(payload.stats.reductions).toContainEqual(
          expect.objectContaining({
            action: 'micro-compacted',
            from: 2,
            to: 7,
            messages: 3,
            recoverableFrom: 'tool-output-cache',
          }),
        );
      },
    );

    it(
      'shows an output with long lines whole while it fits, and as a view under microCompact.when ' + '"always"',
      async () => {
        const json = JSON.stringify({
          flights: Array.from({ length: 60 }, (_, index) => ({
            flight_number: `HAT${100 + index}`,
            date: '2024-05-20',
          })),
        });
        expect(json.length).toBeGreaterThan(2000);
        const history: ChatMessage[] = [
          { role: 'user', content: 'search' },
          ...exchange('search', json),
          { role: 'assistant', content: 'Found them.' },
          { role: 'user', content: 'Book the last one.' },
        ];
        const fits = await setup({ compaction: { enabled: false } }).strategy.composePayload(SYSTEM, history, []);
        const whole = fits.messages.find((message): message is ToolMessage => message.role === 'tool')!;
        expect(whole.content).toBe(json);
        expect(whole.output_ref).toBeDefined();
        expect(fits.stats.reductions).toEqual([]);
        const always = await setup({
          compaction: { enabled: false },
          microCompact: { when: 'always' },
        }).strategy.composePayload(SYSTEM, history, []);
        const view = always.messages.find((message): message is ToolMessage => message.role === 'tool')!;
        expect(view.content).not.toBe(json);
        expect(
          always.stats.reductions.some((record) => record.reason === 'tool output shown as an in-context view'),
        ).toBe(true);
      },
    );

    it('shows a line of megabytes and binary output as bounded views', async () => {
      const { strategy } = setup({ compaction: { enabled: false }, microCompact: { enabled: false } });
      const long = `start ${'m'.repeat(3 * 1024 * 1024)} end`;
      const binary = String.fromCharCode(...Array.from({ length: 3000 }, (_, index) => (index * 37) % 256));
      const history: ChatMessage[] = [
        { role: 'user', content: 'dump' },
        ...exchange('long', long),
        ...exchange('bin', binary),
      ];
      const payload = await strategy.composePayload(SYSTEM, history, []);
      const [longView, binaryView] = payload.messages.filter(
        (message): message is ToolMessage => message.role === 'tool',
      );
      expect(Buffer.byteLength(String(longView!.content))).toBeLessThanOrEqual(50 * 1024);
      expect(longView!.content).toContain('more chars]');
      expect(longView!.content).toContain(`ref=${longView!.output_ref!.id}`);
      expect(binaryView!.content).toMatch(/^\[binary tool output, \d+ bytes, not shown/);
      expect(await strategy.cache.readAll(binaryView!.output_ref!.id)).toBe(binary);
      expect(await strategy.cache.readAll(longView!.output_ref!.id)).toBe(long);
    });

    // Eight 1 MiB write chunks, lines crossing their boundaries: what the cache does for any output
    // larger than one chunk (the 5 MB and 100 MB sizes are measured by `npm run bench`).
    it('caches an output of several megabytes and expands its end by streaming', async () => {
      const { strategy } = setup({ compaction: { enabled: false } });
      const line = `${'0123456789'.repeat(9)}\n`;
      const lines = Math.ceil((8 * 1024 * 1024) / line.length);
      const big = line.repeat(lines) + 'LAST LINE';
      const history: ChatMessage[] = [{ role: 'user', content: 'cat big.log' }, ...exchange('big', big)];
      const payload = await strategy.composePayload(SYSTEM, history, []);
      const view = payload.messages.find((message): message is ToolMessage => message.role === 'tool')!;
      const ref = view.output_ref!;
      expect(ref.byte_size).toBe(Buffer.byteLength(big));
      expect(ref.byte_size).toBeGreaterThan(8 * 1024 * 1024);
      expect(ref.line_count).toBe(lines + 1);
      expect(Buffer.byteLength(String(view.content))).toBeLessThanOrEqual(50 * 1024);
      expect(payload.stats.budget.used).toBeLessThanOrEqual(payload.stats.budget.available);
      const tail = await tool(strategy, 'tool_output_cache')({ ref_id: ref.id, offset: ref.line_count! - 1, limit: 5 });
      expect(tail.split('\n').slice(1)).toEqual([
        `${String(ref.line_count! - 1).padStart(6)}\t${line.trimEnd()}`,
        `${String(ref.line_count!).padStart(6)}\tLAST LINE`,
      ]);
      const grep = await tool(strategy, 'tool_output_cache_grep')({ ref_id: ref.id, pattern: '^LAST' });
      expect(grep).toContain(`${ref.line_count}:LAST LINE`);
    });

    it('rejects a ref that tries to leave the cache with ToolOutputRefNotFoundError', async () => {
      const { strategy } = setup({});
      for (const refId of ['../../transcript/transcript_1.jsonl', 'to_' + 'a'.repeat(32)]) {
        const error = await tool(strategy, 'tool_output_cache')({ ref_id: refId }).catch((caught: unknown) => caught);
        expect(CtxkitError.isInstance(error) && error.code).toBe(ErrorCodes.TOOL_OUTPUT_REF_NOT_FOUND);
      }
    });

    it('never sends a dangling call and reports it', async () => {
      const { strategy } = setup({ compaction: { enabled: false } });
      const history: ChatMessage[] = [
        { role: 'user', content: 'go' },
        ...exchange('a', 'done'),
        { role: 'assistant', content: null, tool_calls: [call('f', 'finish')] },
      ];
      const payload = await strategy.composePayload(SYSTEM, history, []);
      expect(findPayloadProblems(payload.messages)).toEqual([]);
      expect(payload.stats.reductions).toContainEqual(expect.objectContaining({ action: 'dropped', from: 3, to: 4 }));
    });
  });

  describe('#composePayload within the budget', () => {
    const limitOf = (config: { maxContextTokens: number; reserveOutputTokens: number }) =>
      config.maxContextTokens - config.reserveOutputTokens;

    it(
      'leaves out older steps of a long current turn instead of rejecting (tau-bench airline at a 4,096 ' + 'window)',
      async () => {
        // The lab case: one user message followed by 26 tool steps; even with every output trimmed,
        // the calls alone exceed the room left beside the system prompt and the tools.
        const record = loadConversations('tau-bench-airline').find(
          (candidate) => candidate.id === 'tau-bench/airline/gpt-4o/task-2/trial-1',
        )!;
        const config = { model: 'gpt-4o', maxContextTokens: 4096, reserveOutputTokens: 512 };
        for (const length of [59, 61]) {
          const { strategy, context, names } = setup(config);
          const history = freezeDeep(record.history.slice(0, length));
          const payload = await strategy.composePayload(record.systemPrompt, history, record.tools ?? []);
          expect(
            context.counter.countMessages(payload.messages) + context.counter.countTools(payload.tools),
          ).toBeLessThanOrEqual(limitOf(config));
          expect(findPayloadProblems(payload.messages)).toEqual([]);
          // The newest user message and the newest step (call + result) are sent.
          const newestUser = history.map((message) => message.role).lastIndexOf('user');
          expect(payload.messages).toContainEqual(history[newestUser]);
          const lastCall = history[length - 2] as ChatMessage & { role: 'assistant' };
          expect(payload.messages).toContainEqual(lastCall);
          expect(
            payload.messages.some(
              (message) => message.role === 'tool' && message.tool_call_id === lastCall.tool_calls![0]!.id,
            ),
          ).toBe(true);
          // Older steps of the turn left the payload, reported as ranges of history indexes.
          const dropped = payload.stats.reductions.filter((record) => record.action === 'dropped');
          expect(dropped.some((record) => record.from > newestUser)).toBe(true);
          expect(names()).toContain('history-trim');
        }
      },
    );

    it(
      'with keepFirstShare, leaves the outputs of the kept head whole and makes room with the outputs after ' + 'them',
      async () => {
        const config = {
          model: 'gpt-4o',
          maxContextTokens: 4096,
          reserveOutputTokens: 512,
          cutBackRatio: 0.4,
          keepFirstShare: 0.5,
          compaction: { enabled: false },
        };
        const { strategy, context } = setup(config);
        const profile = output('profile', 6);
        const history: ChatMessage[] = [
          { role: 'user', content: 'Change my booking.' },
          ...exchange('lookup', profile),
        ];
        let relieved = 0;
        for (let turn = 0; turn < 40; turn++) {
          history.push(...exchange(`s${turn}`, output(`step${turn}`, 10)), {
            role: 'user',
            content: `Turn ${turn}: go on.`,
          });
          const payload = await strategy.composePayload(SYSTEM, freezeDeep(history.slice()), []);
          expect(
            context.counter.countMessages(payload.messages) + context.counter.countTools(payload.tools),
          ).toBeLessThanOrEqual(limitOf(config));
          expect(findPayloadProblems(payload.messages)).toEqual([]);
          // The first lookup's output is sent as it is, whatever else had to give way.
          expect(
            payload.messages.some(
              (message) => message.role === 'tool' && message.tool_call_id === 'lookup' && message.content === profile,
            ),
          ).toBe(true);
          if (payload.stats.reductions.some((record) => record.action === 'trimmed')) relieved++;
        }
        expect(relieved).toBeGreaterThan(0);
      },
    );

    it(
      'with micro-compact always and a kept head, reports each reduced output the payload shows, and none it ' +
        'leaves out',
      async () => {
        const config = {
          model: 'gpt-4o',
          maxContextTokens: 1500,
          reserveOutputTokens: 0,
          cutBackRatio: 0.9,
          keepFirstShare: 0.6,
          microCompact: { when: 'always' as const },
          compaction: { enabled: false },
        };
        const { strategy } = setup(config);
        const history: ChatMessage[] = [{ role: 'user', content: 'Change my booking.' }];
        for (let index = 0; index < 3; index++) history.push(...exchange(`first${index}`, output(`first${index}`, 8)));
        history.push({ role: 'assistant', content: 'Found it.' });
        const cut = new Set(['trimmed', 'truncated', 'micro-compacted']);
        let headPlaceholders = 0;
        for (let turn = 0; turn < 30; turn++) {
          history.push(
            { role: 'user', content: `Turn ${turn}: go on.` },
            ...exchange(`s${turn}`, output(`step${turn}`, 8)),
            { role: 'assistant', content: `Done with turn ${turn}.` },
          );
          const payload = await strategy.composePayload(SYSTEM, freezeDeep(history.slice()), []);
          const { reductions } = payload.stats;
          const dropped = reductions.filter((record) => record.action === 'dropped');
          const cuts = reductions.filter((record) => cut.has(record.action));
          // No message the payload leaves out is also reported as sent reduced: a cut record spans no dropped one.
          for (const record of cuts)
            for (const left of dropped) expect(record.to <= left.from || record.from >= left.to).toBe(true);
          // Every output the payload shows reduced is reported at its position, with its ref.
          const sentTools = payload.messages.filter((message): message is ToolMessage => message.role === 'tool');
          for (const shown of sentTools) {
            const position = history.findIndex(
              (message) => message.role === 'tool' && message.tool_call_id === shown.tool_call_id,
            );
            if (shown.content === history[position]!.content) continue;
            const ref = /ref=(to_[0-9a-f]{32})/.exec(String(shown.content))![1]!;
            expect(
              cuts.some((record) => record.from <= position && position < record.to && record.refs?.includes(ref)),
            ).toBe(true);
            const headEnd = dropped.find((record) => record.from > 0)?.from ?? 0;
            if (position < headEnd) headPlaceholders++;
          }
        }
        // The case this guards: placeholders among the first messages kept in front of the cut window.
        expect(headPlaceholders).toBeGreaterThan(0);
      },
    );

    it('keeps the user message of a long single-turn run through repeated compactions', async () => {
      const llm = new ScriptedLLMClient([summaryReply], { repeatLast: true });
      const config = { model: 'gpt-4o', maxContextTokens: 4096, reserveOutputTokens: 512 };
      const { strategy, context } = setup({ ...config, microCompact: { enabled: false } }, llm);
      const task = 'Fix the failing parser test in src/parser.c (ISSUE-42).';
      const history: ChatMessage[] = [{ role: 'user', content: task }];
      for (let index = 0; index < 24; index++) history.push(...exchange(`s${index}`, output(`step${index}`, 40)));
      for (let length = 3; length <= history.length; length += 2) {
        const sent = freezeDeep(history.slice(0, length));
        const payload = await strategy.composePayload(SYSTEM, sent, []);
        expect(
          context.counter.countMessages(payload.messages) + context.counter.countTools(payload.tools),
        ).toBeLessThanOrEqual(limitOf(config));
        expect(payload.messages.filter((message) => message.role === 'user' && message.content === task)).toHaveLength(
          1,
        );
        // The newest step is always sent (its output may be cut to fit).
        expect(
          payload.messages.some(
            (message) => message.role === 'tool' && message.tool_call_id === `s${(length - 3) / 2}`,
          ),
        ).toBe(true);
        expect(findPayloadProblems(payload.messages)).toEqual([]);
      }
      expect(strategy.compactionState?.count ?? 0).toBeGreaterThanOrEqual(2);
      expect(strategy.compactionState?.carriedSource).toBe(0);
    });
  });

  describe('#composePayload and the current turn', () => {
    // Outputs are replaced as soon as the tool output budget says so (the minimum reclaim has its own tests).
    const config: ToolOutputCacheStrategyConfig = {
      minReclaimTokens: 0,
      toolOutputCache: { contextBudgetTokens: 500 },
      microCompact: { enabled: false },
      compaction: { enabled: false },
    };
    const isPlaceholder = (message: ChatMessage): boolean =>
      message.role === 'tool' &&
      message.output_ref !== undefined &&
      message.content === `[tool output trimmed; ref=${message.output_ref.id}]`;
    const toolMessage = (messages: ChatMessage[], toolCallId: string) =>
      messages.find(
        (message): message is ToolMessage => message.role === 'tool' && message.tool_call_id === toolCallId,
      );
    const expansionCall = (id: string, refId: string): ChatMessage => ({
      role: 'assistant',
      content: 'I need that earlier output again.',
      tool_calls: [call(id, 'tool_output_cache', JSON.stringify({ ref_id: refId }))],
    });

    it('sends an expansion answer larger than contextBudgetTokens as text on the next payload', async () => {
      const { strategy, context } = setup(config);
      const history: ChatMessage[] = [{ role: 'user', content: 'Fix the build.' }];
      for (let index = 0; index < 4; index++) history.push(...exchange(`c${index}`, output(`out${index}`, 60)));
      const before = await strategy.composePayload(SYSTEM, freezeDeep([...history]), []);
      const trimmed = toolMessage(before.messages, 'c0')!;
      expect(isPlaceholder(trimmed)).toBe(true);
      const answer = await tool(strategy, 'tool_output_cache')({ ref_id: trimmed.output_ref!.id });
      expect(context.counter.countMessage({ role: 'tool', tool_call_id: 'x', content: answer })).toBeGreaterThan(500);
      history.push(expansionCall('expand_1', trimmed.output_ref!.id), {
        role: 'tool',
        tool_call_id: 'expand_1',
        content: answer,
      });
      const payload = await strategy.composePayload(SYSTEM, freezeDeep([...history]), []);
      const expansion = toolMessage(payload.messages, 'expand_1')!;
      expect(expansion.content).toBe(answer);
      expect(
        payload.stats.reductions.some(
          (record) =>
            record.action === 'trimmed' && record.from <= history.length - 1 && record.to > history.length - 1,
        ),
      ).toBe(false);
      // The older outputs make room instead: every one of them is a placeholder now.
      for (const id of ['c0', 'c1', 'c2', 'c3']) expect(isPlaceholder(toolMessage(payload.messages, id)!)).toBe(true);
      expect(findPayloadProblems(payload.messages)).toEqual([]);
    });

    it('still trims the older outputs oldest first and keeps the current turn whole', async () => {
      const { strategy } = setup({ ...config, toolOutputCache: { contextBudgetTokens: 1200 } });
      const history: ChatMessage[] = [{ role: 'user', content: 'Look at the logs.' }];
      for (let index = 0; index < 5; index++) history.push(...exchange(`a${index}`, output(`old${index}`, 15)));
      history.push(
        { role: 'assistant', content: 'The logs are read.' },
        { role: 'user', content: 'Now run both test suites.' },
      );
      history.push(...exchange('t0', output('suite0', 30)), ...exchange('t1', output('suite1', 30)));
      const payload = await strategy.composePayload(SYSTEM, freezeDeep(history), []);
      const older = ['a0', 'a1', 'a2', 'a3', 'a4'].map((id) => isPlaceholder(toolMessage(payload.messages, id)!));
      expect(older.filter(Boolean).length).toBeGreaterThan(0);
      // Oldest first: the trimmed outputs are a prefix of the older ones.
      expect(older).toEqual([...older].sort((left, right) => Number(right) - Number(left)));
      // The current turn (after the newest user message) keeps both outputs as text, although together they pass the
      // budget.
      expect(toolMessage(payload.messages, 't0')!.content).toBe(output('suite0', 30));
      expect(toolMessage(payload.messages, 't1')!.content).toBe(output('suite1', 30));
      const trimmedRecords = payload.stats.reductions.filter((record) => record.action === 'trimmed');
      expect(trimmedRecords.length).toBeGreaterThan(0);
      const newestUser = history.length - 5;
      expect(trimmedRecords.every((record) => record.to <= newestUser)).toBe(true);
    });

    it(
      'does not send a placeholder for an expansion the model asked for, nor for it while the model ' + 'continues',
      async () => {
        // The coding example's pattern: the model sees a placeholder, expands that ref with
        // tool_output_cache (no paging), then continues with its next tool call and answers.
        const { strategy, context } = setup({ ...config, toolOutputCache: { contextBudgetTokens: 800 } });
        const history: ChatMessage[] = [{ role: 'user', content: 'Fix the build.' }];
        for (let index = 0; index < 4; index++) history.push(...exchange(`b${index}`, output(`build${index}`, 50)));
        history.push(
          { role: 'assistant', content: 'The compiler fails in src/main.c.' },
          { role: 'user', content: 'Read the first build log again, then fix it.' },
        );
        const first = await strategy.composePayload(SYSTEM, freezeDeep([...history]), []);
        const placeholder = first.messages.find(isPlaceholder) as ToolMessage;
        expect(placeholder).toBeDefined();
        const answer = await tool(strategy, 'tool_output_cache')({ ref_id: placeholder.output_ref!.id });
        expect(context.counter.countMessage({ role: 'tool', tool_call_id: 'x', content: answer })).toBeGreaterThan(800);
        history.push(expansionCall('expand_1', placeholder.output_ref!.id), {
          role: 'tool',
          tool_call_id: 'expand_1',
          content: answer,
        });
        const payloads = [await strategy.composePayload(SYSTEM, freezeDeep([...history]), [])];
        history.push(...exchange('fix', 'patched src/main.c', 'str_replace_editor'));
        payloads.push(await strategy.composePayload(SYSTEM, freezeDeep([...history]), []));
        history.push({ role: 'assistant', content: 'Fixed.' });
        payloads.push(await strategy.composePayload(SYSTEM, freezeDeep([...history]), []));
        for (const payload of payloads) {
          const expansion = toolMessage(payload.messages, 'expand_1')!;
          expect(isPlaceholder(expansion)).toBe(false);
          expect(expansion.content).toBe(answer);
          expect(findPayloadProblems(payload.messages)).toEqual([]);
          expect(payload.stats.output_tokens).toBeLessThanOrEqual(payload.stats.budget.available);
        }
      },
    );
  });

  describe('compaction', () => {
    it('saves the transcript before calling the model, even when the call fails', async () => {
      let transcriptsAtCall = -1;
      const { strategy, context } = setup({ maxContextTokens: 8000 });
      const llm = new ScriptedLLMClient([
        async () => {
          transcriptsAtCall = (
            await context.store.listBlobs({ agentId: 'agent-1', sessionId: 'session-1', kind: 'transcript' })
          ).length;
          return new LLMRequestError('boom', { client: 'scripted' }, { retryable: false });
        },
      ]);
      (context as { llm: ILLMClient }).llm = llm;
      const history = longHistory(3, 10);
      const result = await strategy.checkCompaction('after-llm-call', history, usage(7000));
      expect(result.compacted).toBe(false);
      expect(transcriptsAtCall).toBe(1);
      const [key] = await context.store.listBlobs({ agentId: 'agent-1', sessionId: 'session-1', kind: 'transcript' });
      expect(key!.name).toMatch(/^transcript_\d+\.jsonl$/);
      let text = '';
      for await (const chunk of context.store.readBlob(key!)) text += Buffer.from(chunk).toString('utf8');
      expect(
        text
          .trimEnd()
          .split('\n')
          .map((row) => JSON.parse(row)),
      ).toEqual(history);
    });

    it.each([
      ['a failing model', new LLMRequestError('HTTP 500', { client: 'scripted' }, { retryable: true })],
      ['an empty answer', ''],
      ['an answer without tags', 'Sure, here is a summary of the work so far.'],
      ['a summary larger than the history', `<summary>${'word '.repeat(5000)}</summary>`],
    ])('changes nothing after %s and does not retry in a loop', async (_label, answer) => {
      const llm = new ScriptedLLMClient([answer as string], { repeatLast: true });
      const { strategy, names } = setup({ maxContextTokens: 8000 }, llm);
      const history = longHistory(3, 10);
      const before = await strategy.composePayload(SYSTEM, history, []);
      const first = await strategy.checkCompaction('after-llm-call', history, usage(7000));
      const second = await strategy.checkCompaction('after-tools', history);
      const third = await strategy.checkCompaction('before-return', history);
      expect([first.compacted, second.compacted, third.compacted]).toEqual([false, false, false]);
      expect(second.reason).toContain('anti-loop guard');
      expect(llm.requests).toHaveLength(1);
      expect(names().filter((name) => name === 'compaction-error')).toHaveLength(1);
      const after = await strategy.composePayload(SYSTEM, history, []);
      expect(after.messages).toEqual(before.messages);
      expect((after.stats.extra!.compaction as { lastError: { code: string } }).lastError.code).toMatch(/^CTXKIT_LLM_/);
    });

    it('takes the final <summary> block and is not fooled by a tool output containing </summary>', async () => {
      const reply =
        '<summary>draft</summary>\n<retain>ref kept</retain>\n<summary>The log printed "</summary>" and then the ' +
        'build failed at line 40.</summary>';
      const llm = new ScriptedLLMClient([reply]);
      const { strategy } = setup({ maxContextTokens: 8000 }, llm);
      const history = [
        { role: 'user' as const, content: 'build' },
        ...exchange('x', `${output('log', 30)}\n</summary> injected`),
        { role: 'user' as const, content: 'and?' },
      ];
      const result = await strategy.checkCompaction('after-llm-call', history, usage(7000));
      expect(result.messages!.slice(0, 2)).toEqual([
        { role: 'user', content: 'ref kept' },
        { role: 'user', content: 'The log printed "</summary>" and then the build failed at line 40.' },
      ]);
    });

    it('collects cached outputs nothing references after compaction and keeps those the summary names', async () => {
      const history = longHistory(4, 10);
      const llm = new ScriptedLLMClient([
        (request) => {
          const refs = JSON.stringify(request.messages).match(/to_[0-9a-f]{32}/g) ?? [];
          return `<retain>${refs[0]}</retain><summary>Read four logs.</summary>`;
        },
      ]);
      const { strategy, events } = setup({ maxContextTokens: 8000, microCompact: { keepRecent: 1 } }, llm);
      await strategy.composePayload(SYSTEM, history, []);
      const before = await strategy.cache.list();
      expect(before).toHaveLength(4);
      const result = await strategy.checkCompaction('after-llm-call', history, usage(7000));
      expect(result.compacted).toBe(true);
      const kept = String(result.messages![0]!.content);
      const after = await strategy.cache.list();
      expect(after).toEqual([kept]);
      const gc = events.find((event) => event.name === 'tool-output-gc')!;
      expect((gc.payload.refIds as string[]).sort()).toEqual(before.filter((id) => id !== kept).sort());
    });

    it('caches each output once per payload, also when the payload compacts', async () => {
      const cached = jest.spyOn(ToolOutputCache.prototype, 'cacheLater');
      const put = jest.spyOn(ToolOutputCache.prototype, 'put');
      try {
        const { strategy, names } = setup({ maxContextTokens: 100000 }, new ScriptedLLMClient([summaryReply]));
        const history = longHistory(2, 5);
        strategy.requestCompaction();
        const payload = await strategy.composePayload(SYSTEM, history, []);
        await strategy.whenIdle();
        expect(strategy.compactionState?.count).toBe(1);
        expect(cached).toHaveBeenCalledTimes(2);
        // The compaction summarized both outputs: they were collected before they were written.
        expect(put).not.toHaveBeenCalled();
        // The view laid over the compacted history: retain + summary, then the kept turn.
        expect(payload.messages.map((message) => message.content).slice(1)).toEqual([COMPACTED_BLOCK, 'Go on.']);
        expect(payload.stats.extra).toMatchObject({ toolOutputCache: { newlyCached: 2 } });
        expect(names().filter((name) => name === 'tool-output-cached')).toHaveLength(2);
      } finally {
        cached.mockRestore();
        put.mockRestore();
      }
    });

    it('runs the compact tool at the next payload', async () => {
      const llm = new ScriptedLLMClient([summaryReply]);
      const { strategy, events } = setup({ maxContextTokens: 100000 }, llm);
      const history = longHistory(2, 5);
      expect(await tool(strategy, 'compact')({ focus: 'the failing test' })).toContain('Compaction scheduled');
      const payload = await strategy.composePayload(SYSTEM, history, []);
      expect(payload.messages.map((message) => message.content).slice(1)).toEqual([COMPACTED_BLOCK, 'Go on.']);
      expect(events.find((event) => event.name === 'compaction-end')!.payload.trigger).toBe('manual');
      expect(JSON.stringify(llm.requests[0]!.messages)).toContain('the failing test');
    });

    describe('when it cannot reach its threshold', () => {
      const summary =
        '<retain>ids: ISSUE-7</retain>\n<summary>The agent read the logs and is fixing src/main.c.</summary>';
      /**
       * Messages of about `tokens` tokens in all, to grow a history by (assistant messages stay in the current turn).
       */
      const growth = (
        label: string,
        tokens: number,
        counter: { countMessage(message: ChatMessage): number },
        role: 'user' | 'assistant' = 'user',
      ): ChatMessage[] => {
        const messages: ChatMessage[] = [];
        let total = 0;
        for (let index = 0; total < tokens; index++) {
          const message: ChatMessage = {
            role,
            content: `${label} ${index}: ${'the build still fails on the same line '.repeat(6)}`,
          };
          messages.push(message);
          total += counter.countMessage(message);
        }
        return messages;
      };

      it(
        'keeps a compaction whose result is still over the threshold, names what it cannot remove, and backs off ' +
          'exponentially',
        async () => {
          const llm = new ScriptedLLMClient([summary], { repeatLast: true });
          const { strategy, context, events } = setup({ maxContextTokens: 8000 }, llm);
          // Older turns to summarize, then a current turn whose output alone passes the 6,400-token threshold.
          const history: ChatMessage[] = [{ role: 'user', content: 'Fix the build.' }];
          for (let index = 0; index < 4; index++) history.push(...exchange(`old${index}`, output(`old${index}`, 40)));
          history.push({ role: 'user', content: 'Read the whole log.' }, ...exchange('huge', output('huge', 420)));
          expect(context.counter.countMessage(history[history.length - 1]!)).toBeGreaterThan(6400);
          const first = await strategy.checkCompaction('after-llm-call', history, usage(7900));
          expect(first.compacted).toBe(true);
          expect(llm.requests).toHaveLength(1);
          const warning = events.find(
            (event) => event.name === 'strategy-warning' && event.payload.code === ErrorCodes.COMPACTION_NO_PROGRESS,
          )!;
          expect(String(warning.payload.message)).toMatch(
            /the last 1 turn kept verbatim \(compaction\.retainLastTurns\): 3 messages, \d+ tokens/,
          );
          const stats = () =>
            (strategy as unknown as { compactor: { stats(): Record<string, unknown> } }).compactor.stats();
          expect(stats()).toMatchObject({
            retryAfterTokens: 1000,
            attemptsWithoutProgress: 1,
            lastError: { code: ErrorCodes.COMPACTION_NO_PROGRESS, details: { thresholdTokens: 6400 } },
          });
          const parts = (
            stats().lastError as { details: { parts: Array<{ part: string; tokens: number; messages?: number }> } }
          ).details.parts;
          expect(parts.map((part) => part.part)).toEqual([
            'the last 1 turn kept verbatim (compaction.retainLastTurns)',
            'the system prompt, tool definitions and dynamic context',
            'the retain + summary the model wrote',
          ]);
          expect(parts[0]!.tokens).toBeGreaterThan(6400);

          // Usage stays over the threshold at every hook: no attempt until the history has grown by 1,000 tokens.
          let current = [...history];
          for (const checkpoint of ['after-tools', 'before-return', 'after-llm-call'] as const) {
            expect((await strategy.checkCompaction(checkpoint, current, usage(7900))).reason).toContain(
              'anti-loop guard',
            );
          }
          current = [...current, ...growth('grow', 500, context.counter, 'assistant')];
          expect((await strategy.checkCompaction('after-llm-call', current, usage(7900))).compacted).toBe(false);
          expect(llm.requests).toHaveLength(1);
          // The next model step is as large: the compaction runs again, keeps it, and still cannot reach the threshold.
          current = [...current, ...exchange('huge2', output('huge2', 420))];
          expect((await strategy.checkCompaction('after-llm-call', current, usage(7900))).compacted).toBe(true);
          expect(llm.requests).toHaveLength(2);
          // The second attempt in a row without progress doubles the wait.
          expect(stats()).toMatchObject({ retryAfterTokens: 2000, attemptsWithoutProgress: 2 });
          current = [...current, ...growth('again', 1200, context.counter, 'assistant')];
          expect((await strategy.checkCompaction('after-llm-call', current, usage(7900))).reason).toContain(
            'anti-loop guard',
          );
          expect(llm.requests).toHaveLength(2);
          // A compaction asked for still runs (this one keeps only the last small step: it reaches the
          // threshold and the wait starts over), and the payload is within budget.
          strategy.requestCompaction();
          const payload = await strategy.composePayload(SYSTEM, current, []);
          expect(llm.requests).toHaveLength(3);
          expect(payload.stats.budget.used).toBeLessThanOrEqual(payload.stats.budget.available);
          expect(payload.stats.extra!.compaction).toMatchObject({
            attemptsWithoutProgress: 0,
            retryAfterTokens: 1000,
            lastError: null,
          });
        },
      );

      it(
        'does not call the model when nothing but an earlier summary could be summarized and the kept turn alone ' +
          'passes the threshold',
        async () => {
          const llm = new ScriptedLLMClient([summary], { repeatLast: true });
          const { strategy, events } = setup({ maxContextTokens: 8000 }, llm);
          const history = longHistory(4, 10);
          expect((await strategy.checkCompaction('after-llm-call', history, usage(7000))).compacted).toBe(true);
          // The kept turn ("Go on.") goes on with one step whose output alone passes the threshold.
          const grown = [...history, ...exchange('huge', output('huge', 420))];
          const result = await strategy.checkCompaction('after-llm-call', grown, usage(7900));
          expect(result.compacted).toBe(false);
          expect(llm.requests).toHaveLength(1);
          const error = events
            .filter((event) => event.name === 'compaction-error')
            .map((event) => event.payload.error as { code: string; message: string });
          expect(error).toEqual([
            {
              code: ErrorCodes.COMPACTION_NO_PROGRESS,
              message: expect.stringContaining('cannot bring the context under its threshold of 6400 tokens'),
            },
          ]);
          expect(error[0]!.message).toMatch(
            /the last 1 turn kept verbatim \(compaction\.retainLastTurns\): 3 messages/,
          );
          // It is not tried again at the next turn.
          const next = await strategy.checkCompaction('after-tools', [
            ...grown,
            { role: 'assistant', content: 'Read it.' },
          ]);
          expect(next.reason).toContain('anti-loop guard');
        },
      );

      it('without a model, fails once without building the view and waits before the next attempt', async () => {
        const { strategy, context, names } = setup({ maxContextTokens: 8000 });
        const exchanges = 800;
        const history = longHistory(exchanges, 10);
        const cacheSpy = jest.spyOn(strategy.cache, 'put');
        await strategy.composePayload(SYSTEM, history, []);
        expect(cacheSpy).not.toHaveBeenCalled();
        // The outputs the payload cached are written once it is returned.
        await strategy.whenIdle();
        const stored = cacheSpy.mock.calls.length;
        expect(names().filter((name) => name === 'compaction-error')).toHaveLength(1);
        expect(names()).not.toContain('compaction-start');
        // Only the outputs a payload can reach are cached: the attempt did not build the whole view.
        expect(stored).toBeGreaterThan(0);
        expect(stored).toBeLessThan(exchanges / 2);
        let current = [...history];
        for (let turn = 0; turn < 3; turn++) {
          current = [...current, { role: 'user', content: `Turn ${turn}?` }];
          await strategy.composePayload(SYSTEM, current, []);
        }
        expect(names().filter((name) => name === 'compaction-error')).toHaveLength(1);
        current = [...current, ...growth('grow', 1100, context.counter)];
        await strategy.composePayload(SYSTEM, current, []);
        expect(names().filter((name) => name === 'compaction-error')).toHaveLength(2);
        cacheSpy.mockRestore();
      });
    });

    it('reads the context limit from the registry and rejects an unknown model', () => {
      expect(setup({ model: 'local-16k' }).strategy.contextLimit).toBe(16384);
      expect(() => setup({ model: 'no-such-model' })).toThrow(
        expect.objectContaining({ code: ErrorCodes.UNKNOWN_MODEL }),
      );
    });
  });

  describe('turns and shape checks', () => {
    it(
      'numbers the turns of the hook, onTurnComplete and preview like those of the payload, whichever history each ' +
        'gets',
      async () => {
        const { strategy, events } = setup({
          toolOutputCache: { contextBudgetTokens: 800 },
          microCompact: { enabled: false },
          compaction: { enabled: false },
        });
        const history = longHistory(4, 20);
        await strategy.preview(SYSTEM, history, []);
        await strategy.composePayload(SYSTEM, history, []);
        const finished = [...history, ...exchange('late', output('late', 20))];
        await strategy.onTurnComplete(finished);
        // A copy rebuilt from JSON is read whole, and counts the same.
        await strategy.checkCompaction('after-tools', JSON.parse(JSON.stringify(finished)) as ChatMessage[]);
        await strategy.composePayload(SYSTEM, [...finished, { role: 'user', content: 'Next.' }], []);
        await strategy.whenIdle();
        const reported = events
          .filter((event) => event.name === 'tool-output-cached' || event.name === 'tool-output-trim')
          .map((event) => event.payload as { turn: number; toolCallId?: string });
        // The output onTurnComplete cached belongs to the turn of 'Go on.', the second user message.
        expect(reported.filter((payload) => payload.toolCallId === 'late').map((payload) => payload.turn)).toEqual([2]);
        expect(reported.some((payload) => payload.turn === 3)).toBe(true);
        expect(reported.every((payload) => payload.turn === 2 || payload.turn === 3)).toBe(true);
      },
    );

    it(
      'rejects a message of unknown role at every call that reads the history, not only at ' + 'composePayload',
      async () => {
        const { strategy } = setup({});
        const bad = [
          { role: 'user', content: 'Hi.' },
          { role: 'robot', content: '?' },
        ] as unknown as ChatMessage[];
        await expect(strategy.checkCompaction('before-return', bad)).rejects.toMatchObject({
          code: ErrorCodes.HISTORY_INVALID,
        });
        await expect(strategy.onTurnComplete(bad)).rejects.toMatchObject({ code: ErrorCodes.HISTORY_INVALID });
        await expect(strategy.preview(SYSTEM, bad, [])).rejects.toMatchObject({ code: ErrorCodes.HISTORY_INVALID });
        await expect(strategy.composePayload(SYSTEM, bad, [])).rejects.toMatchObject({
          code: ErrorCodes.HISTORY_INVALID,
        });
      },
    );
  });

  describe('#dispose', () => {
    it(
      'is safe to call twice; every later call rejects naming the strategy, the method, the agent and the ' + 'session',
      async () => {
        const { strategy } = setup({});
        strategy.dispose();
        strategy.dispose();
        const history: ChatMessage[] = [{ role: 'user', content: 'Hi.' }];
        const calls: Array<[string, () => Promise<unknown>]> = [
          ['composePayload', () => strategy.composePayload(SYSTEM, history, [])],
          ['onTurnComplete', () => strategy.onTurnComplete(history)],
          ['checkCompaction', () => strategy.checkCompaction('before-return', history)],
          ['preview', () => strategy.preview(SYSTEM, history, [])],
          ['undo', () => strategy.undo('e1')],
        ];
        for (const [method, run] of calls) {
          await expect(run()).rejects.toMatchObject({
            code: ErrorCodes.DISPOSED,
            message: expect.stringContaining(
              `std-tool-output-cache-strategy (${method}) for agent "agent-1", session "session-1"`,
            ),
          });
        }
      },
    );
  });
});
