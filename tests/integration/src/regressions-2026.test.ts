import 'reflect-metadata';

import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

import {
  type AgentManifest,
  type ChatMessage,
  type ContextRuntime,
  type ContextSession,
  createContextRuntime,
  FileContextStore,
  type IContextStore,
  type ILLMClient,
  type LLMCompletionRequest,
  MemoryContextStore,
  type ToolMessage,
} from '@ctxkit/core';
import { contentText } from '@ctxkit/core/strategy-kit';
import { ScriptedLLMClient, type ScriptStep } from '@ctxkit/core/testing';
import { type AgentTool, createAgent } from '@ctxkit/kernel';
import { RedisContextStore } from '@ctxkit/store-redis';

import { type RedisServerProcess, startRedisServer } from '../../../packages/store-redis/src/__tests__/redis-server';

/**
 * The failures users reported of context libraries in 2026, each as the behaviour ctxkit promises
 * instead, driven through the runtime (plugin.json → loader → DI), the kernel's loop and the stores
 * (docs/14-controlling-what-survives.md, "What ctxkit guarantees"). The plugins run from their built
 * `dist`: run `npx tsc -b` first.
 */

const SYSTEM = 'You are a careful agent.';

/** A model call a strategy makes for itself (summary, compaction, extraction): sent without tools. */
const isHelperCall = (request: LLMCompletionRequest) => request.tools === null || request.tools === undefined;

/** The text of every message of a request. */
const requestText = (request: { messages: readonly ChatMessage[] }) =>
  request.messages.map((message) => contentText(message.content ?? null)).join('\n');

/** A tool the agent calls: `read_file` answers `lines` numbered lines naming the call. */
function readFileTool(lines: number): AgentTool {
  let calls = 0;
  return {
    definition: {
      type: 'function',
      function: {
        name: 'read_file',
        description: 'Reads a file.',
        parameters: { type: 'object', properties: { path: { type: 'string' } } },
      },
    },
    execute: (args) => {
      calls++;
      const file = (args as { path?: string }).path ?? 'unknown';
      return Array.from(
        { length: lines },
        (_, line) => `${file}:${line + 1} read ${calls}: int value_${line} = compute(${line}, ${calls}); // build step`,
      ).join('\n');
    },
  };
}

/**
 * The agent's side of a scripted model: the next step of `steps`, and `helper(request)` for the strategy's own calls.
 */
function scriptedModel(steps: ScriptStep[], helper: (request: LLMCompletionRequest) => ScriptStep) {
  let next = 0;
  return new ScriptedLLMClient(
    [
      (request) => {
        if (isHelperCall(request)) return helper(request);
        const step = steps[next++];
        if (step === undefined)
          throw new Error(`the script has ${steps.length} agent steps; step ${next} was asked for`);
        return step;
      },
    ],
    { repeatLast: true },
  );
}

const toolCall = (id: string, file: string, input: number): ScriptStep => ({
  reply: {
    content: null,
    tool_calls: [{ id, type: 'function', function: { name: 'read_file', arguments: JSON.stringify({ path: file }) } }],
  },
  usage: { input_tokens: input, output_tokens: 20 },
});
const answer = (text: string, input: number): ScriptStep => ({
  reply: text,
  usage: { input_tokens: input, output_tokens: 20 },
});

/**
 * Where a message sits between an assistant's tool calls and their results, or a result has no call
 * right before it: every assistant message with `tool_calls` must be followed at once by exactly one
 * result per call, and nothing else.
 */
function pairingBreaks(messages: readonly ChatMessage[]): string[] {
  const breaks: string[] = [];
  for (let index = 0; index < messages.length; index++) {
    const message = messages[index]!;
    if (message.role === 'tool') {
      let start = index;
      while (start > 0 && messages[start - 1]!.role === 'tool') start--;
      const call = messages[start - 1];
      const ids = call?.role === 'assistant' ? (call.tool_calls ?? []).map((entry) => entry.id) : [];
      if (!ids.includes(message.tool_call_id))
        breaks.push(
          `message ${index}: result of ${message.tool_call_id} ` +
            `after ${call ? `a ${call.role} message` : 'nothing'}, not right after its call`,
        );
      continue;
    }
    if (message.role !== 'assistant' || !message.tool_calls?.length) continue;
    const results = messages.slice(index + 1, index + 1 + message.tool_calls.length);
    const expected = message.tool_calls.map((entry) => entry.id).sort();
    const got = results.map((result) => (result.role === 'tool' ? result.tool_call_id : `<${result.role}>`)).sort();
    // A call still waiting for its results ends the list.
    if (results.length === 0 && index === messages.length - 1) continue;
    if (JSON.stringify(got) !== JSON.stringify(expected))
      breaks.push(`message ${index}: calls ${expected.join(',')} followed by ${got.join(',') || 'nothing'}`);
  }
  return breaks;
}

describe("the field's 2026 bug classes, as regression tests", () => {
  const runtimes: ContextRuntime[] = [];
  async function runtimeWith(options: { llm?: ILLMClient; store?: IContextStore }): Promise<ContextRuntime> {
    const runtime = await createContextRuntime(options);
    runtimes.push(runtime);
    return runtime;
  }
  afterEach(async () => {
    for (const runtime of runtimes.splice(0)) await runtime.dispose();
  });

  it("the compaction trigger reads the last request's usage, never a sum", async () => {
    // Threshold 0.8 × 8,000 = 6,400 tokens. Every request of the first run reports 3,000 input tokens:
    // 15,500 in all, each one far below the threshold.
    const llm = scriptedModel(
      [
        toolCall('c1', 'a.c', 3000),
        toolCall('c2', 'b.c', 3000),
        toolCall('c3', 'c.c', 3000),
        toolCall('c4', 'd.c', 3000),
        answer('The bug is in d.c.', 3000),
        answer('Fixed.', 6500),
      ],
      () => '<retain>a.c, b.c, c.c, d.c</retain><summary>The agent read a.c to d.c; the bug is in d.c.</summary>',
    );
    const runtime = await runtimeWith({ llm });
    const manifest: AgentManifest = {
      id: 'usage-coder',
      model: 'gpt-4o',
      contextStrategy: {
        type: 'plugin',
        pluginId: 'std-tool-output-cache-strategy',
        config: { maxContextTokens: 8000, compaction: { thresholdRatio: 0.8 } },
      },
    };
    const agent = createAgent(await runtime.loadAgent(manifest), {
      llm,
      systemPrompt: SYSTEM,
      tools: [readFileTool(30)],
    });

    const first = await agent.run('Find the bug.');
    expect(first.usagePerStep.map((usage) => usage.input_tokens)).toEqual([3000, 3000, 3000, 3000, 3000]);
    expect(first.usage.total_tokens).toBeGreaterThan(6400);
    expect(first.compactions).toBe(0);
    expect(llm.requests.filter(isHelperCall)).toHaveLength(0);

    // One request whose own usage passes the threshold compacts.
    const second = await agent.run('Fix it.');
    expect(second.compactions).toBe(1);
    expect(llm.requests.filter(isHelperCall)).toHaveLength(1);
  });

  it('nested compactions never put a message between a tool call and its result', async () => {
    // One long agent run: every request reports more than the threshold, so each step that grew the
    // history by compaction.retryAfterTokens compacts again, on top of the previous compaction, while
    // the step's tool calls wait for their results.
    const steps: ScriptStep[] = [];
    for (let step = 0; step < 14; step++) steps.push(toolCall(`call_${step}`, `src/file_${step}.c`, 7000));
    steps.push(answer('All files read; the bug is in src/file_13.c.', 7000));
    let summaries = 0;
    const llm = scriptedModel(
      steps,
      () =>
        `<retain>src/file_0.c … src/file_${++summaries}.c</retain><summary>Compaction ${summaries}: the agent is ` +
        `reading the sources one by one.</summary>`,
    );
    const runtime = await runtimeWith({ llm });
    const manifest: AgentManifest = {
      id: 'nested-coder',
      model: 'gpt-4o',
      contextStrategy: {
        type: 'plugin',
        pluginId: 'std-tool-output-cache-strategy',
        config: { maxContextTokens: 8000, compaction: { thresholdRatio: 0.5, retainLastTurns: 2 } },
      },
    };
    const agent = createAgent(await runtime.loadAgent(manifest), {
      llm,
      systemPrompt: SYSTEM,
      tools: [readFileTool(80)],
      maxSteps: 20,
    });
    const result = await agent.run('Read every source file and find the bug.');
    expect(result.compactions).toBeGreaterThanOrEqual(3);
    expect(result.stopReason).toBe('final-answer');
    // The history the kernel goes on with, and every request the model was sent.
    expect(pairingBreaks(result.messages)).toEqual([]);
    for (const request of llm.requests.filter((request) => !isHelperCall(request)))
      expect(pairingBreaks(request.messages)).toEqual([]);
  });

  describe(
    'after reduce → persist → reload, every excluded message is covered by a persisted summary, ref or ' + 'epoch',
    () => {
      /** A turn of a booking conversation with a lookup whose result is long. */
      const turn = (n: number): ChatMessage[] => [
        { role: 'user', content: `Turn ${n}: look up reservation RES${1000 + n} for user user_${n}.` },
        {
          role: 'assistant',
          content: null,
          tool_calls: [
            {
              id: `call_${n}`,
              type: 'function',
              function: {
                name: 'get_reservation_details',
                arguments: JSON.stringify({ reservation_id: `RES${1000 + n}` }),
              },
            },
          ],
        },
        {
          role: 'tool',
          tool_call_id: `call_${n}`,
          content: Array.from(
            { length: 40 },
            (_, line) => `RES${1000 + n} segment ${line}: flight HAT${100 + line} seat ${line}A fare 1${line}0 USD`,
          ).join('\n'),
        },
        { role: 'assistant', content: `Reservation RES${1000 + n} has 40 segments. Anything else?` },
      ];
      const conversation = (turns: number) => Array.from({ length: turns }, (_, index) => turn(index + 1)).flat();

      async function serveThenReload(manifest: AgentManifest, turns: number, compactAt?: number) {
        const root = fs.mkdtempSync(path.join(os.tmpdir(), 'ctxkit-reload-'));
        try {
          const llm = new ScriptedLLMClient(
            [
              '<retain>RES1001 to RES1004</retain><summary>The user looked up reservations RES1001 to ' +
                'RES1004.</summary>',
            ],
            { repeatLast: true },
          );
          // The process that reduces and persists.
          const first = (await runtimeWith({ store: new FileContextStore({ rootDir: root }), llm })).loadAgent(
            manifest,
          );
          const serving = (await first).forSession('reload-1');
          let history: ChatMessage[] = [];
          for (let n = 1; n <= turns; n++) {
            history = conversation(n);
            await serving.composePayload(SYSTEM, history, []);
            if (n === compactAt) {
              const compact = serving.contributedTools!().find((tool) => tool.definition.function.name === 'compact')!;
              await compact.execute({}, { agentId: manifest.id, sessionId: 'reload-1', toolCallId: 'compact-1' });
              const compacted = await serving.checkCompaction!('before-return', history);
              expect(compacted.compacted).toBe(true);
            }
            await serving.onTurnComplete(history);
            await serving.whenIdle?.();
          }
          await runtimes.pop()!.dispose();

          // A new process on the same store: what it leaves out of the payload must be covered by what it reads back.
          const reloaded = (
            await (await runtimeWith({ store: new FileContextStore({ rootDir: root }), llm })).loadAgent(manifest)
          ).forSession('reload-1');
          const payload = await reloaded.composePayload(SYSTEM, history, []);
          const sent = new Set(payload.messages.map((message) => JSON.stringify(message)));
          const excluded = history
            .map((message, index) => (sent.has(JSON.stringify(message)) ? -1 : index))
            .filter((index) => index >= 0);
          expect(excluded.length).toBeGreaterThan(0);
          const epochs = await reloaded.epochs();
          const expand = reloaded
            .contributedTools?.()
            .find((tool) => tool.definition.function.name === 'tool_output_cache');
          const uncovered: number[] = [];
          for (const index of excluded) {
            if (
              epochs.some((epoch) => epoch.range !== undefined && epoch.range.from <= index && index < epoch.range.to)
            )
              continue;
            const message = history[index]!;
            const shown = payload.messages.find(
              (candidate): candidate is ToolMessage =>
                candidate.role === 'tool' && message.role === 'tool' && candidate.tool_call_id === message.tool_call_id,
            );
            if (expand && shown?.output_ref) {
              const read = String(
                await expand.execute(
                  { ref_id: shown.output_ref.id, offset: 1, limit: 1000 },
                  { agentId: manifest.id, sessionId: 'reload-1', toolCallId: 'x' },
                ),
              );
              const lines = read
                .split('\n')
                .filter((row) => /^ *\d+\t/.test(row))
                .map((row) => row.replace(/^ *\d+\t/, ''));
              if (lines.join('\n') === contentText((message as ToolMessage).content)) continue;
            }
            uncovered.push(index);
          }
          expect(uncovered).toEqual([]);
          return { payload, epochs, excluded };
        } finally {
          fs.rmSync(root, { recursive: true, force: true });
        }
      }

      it(
        'std-summarization-strategy: the messages folded into the summary are covered by its fold ' + 'epochs',
        async () => {
          const { epochs, payload } = await serveThenReload(
            {
              id: 'reload-summaries',
              model: 'gpt-4o',
              contextStrategy: {
                type: 'plugin',
                pluginId: 'std-summarization-strategy',
                config: { maxContextTokens: 2500, threshold: 2, batchTurns: 2, summarizer: 'offline' },
              },
            },
            8,
          );
          expect(epochs.filter((epoch) => epoch.kind === 'fold').length).toBeGreaterThan(0);
          expect(payload.stats.summarized).toBeGreaterThan(0);
        },
      );

      it(
        'std-tool-output-cache-strategy: trimmed outputs by their refs, compacted turns by the compaction ' + 'epoch',
        async () => {
          const { epochs } = await serveThenReload(
            {
              id: 'reload-cache',
              model: 'gpt-4o',
              contextStrategy: {
                type: 'plugin',
                pluginId: 'std-tool-output-cache-strategy',
                config: { maxContextTokens: 4000, toolOutputCache: { contextBudgetTokens: 1000 } },
              },
            },
            8,
            4,
          );
          expect(epochs.some((epoch) => epoch.kind === 'compaction')).toBe(true);
        },
      );
    },
  );

  describe('request-scoped dynamic context never reaches the store', () => {
    const MARKER = 'RAG-ONLY-7Q9X';
    /** A helper model that writes into its answer every line it was sent that carries the marker. */
    const leakingHelper = (request: LLMCompletionRequest): ScriptStep => {
      const leaked = requestText(request)
        .split('\n')
        .filter((line) => line.includes(MARKER))
        .join(' ');
      if (request.responseFormat === 'json') return JSON.stringify({ notes: `reservation lookups ${leaked}`.trim() });
      return (
        `<retain>RES1001 ${leaked}</retain><summary>The user looks up reservations one by ` + `one. ${leaked}</summary>`
      );
    };

    /** Every value and blob the store holds, as text. */
    async function storedText(store: MemoryContextStore, agentId: string): Promise<string> {
      const parts: string[] = [];
      for (const key of await store.list({ agentId })) parts.push(JSON.stringify(await store.get(key)));
      for (const key of await store.listBlobs({ agentId })) {
        const chunks: Uint8Array[] = [];
        for await (const chunk of store.readBlob(key)) chunks.push(chunk);
        parts.push(Buffer.concat(chunks).toString('utf8'));
      }
      return parts.join('\n');
    }

    it.each<[string, Record<string, unknown>, boolean]>([
      [
        'std-summarization-strategy',
        { maxContextTokens: 3000, threshold: 1, batchTurns: 1, checkSummaries: false },
        true,
      ],
      [
        'std-entity-extraction-strategy',
        { maxContextTokens: 3000, stateSchema: { type: 'object', properties: { notes: { type: 'string' } } } },
        true,
      ],
      [
        'std-tool-output-cache-strategy',
        { maxContextTokens: 6000, toolOutputCache: { contextBudgetTokens: 1000 }, compaction: { thresholdRatio: 0.3 } },
        true,
      ],
      ['std-recall-strategy', { maxContextTokens: 3000 }, false],
    ])('%s: the model sees it, no stored value or blob holds it', async (pluginId, config, usesHelper) => {
      const store = new MemoryContextStore();
      const steps: ScriptStep[] = [];
      for (let n = 0; n < 6; n++)
        steps.push(toolCall(`call_${n}`, `res_${n}.json`, 900), answer(`Reservation ${n} is confirmed.`, 900));
      const llm = scriptedModel(steps, leakingHelper);
      const runtime = await runtimeWith({ llm, store });
      const agentId = `dynamic-${pluginId}`;
      const agent = createAgent(
        await runtime.loadAgent({
          id: agentId,
          model: 'gpt-4o',
          contextStrategy: { type: 'plugin', pluginId, config },
        }),
        { llm, systemPrompt: SYSTEM, tools: [readFileTool(60)] },
      );
      for (let n = 0; n < 6; n++) {
        await agent.run(`Turn ${n}: look up reservation RES${1000 + n}.`, {
          ragContext: `Retrieved policy excerpt ${MARKER}: refunds within 24 hours.`,
          waitForIdle: true,
        });
      }
      const agentRequests = llm.requests.filter((request) => !isHelperCall(request));
      expect(agentRequests.every((request) => requestText(request).includes(MARKER))).toBe(true);
      const stored = await storedText(store, agentId);
      expect(stored.length).toBeGreaterThan(0);
      if (usesHelper) expect(llm.requests.filter(isHelperCall).length).toBeGreaterThan(0);
      expect(stored).not.toContain(MARKER);
      for (const request of llm.requests.filter(isHelperCall)) expect(requestText(request)).not.toContain(MARKER);
    });
  });

  describe('two writers and a compaction on one Redis session', () => {
    let server: RedisServerProcess;
    const stores: RedisContextStore[] = [];
    beforeAll(async () => {
      server = await startRedisServer();
    });
    afterAll(async () => {
      for (const store of stores) await store.close();
      await server?.stop();
    });

    it('a compare-and-set conflict retries from the current state and never overwrites', async () => {
      const turn = (n: number): ChatMessage[] => [
        { role: 'user', content: `Turn ${n}: look up reservation RES${1000 + n}.` },
        {
          role: 'assistant',
          content:
            `Reservation RES${1000 + n} is on flight ` +
            `HAT${100 + n}. ${'It departs on time and the seat is confirmed. '.repeat(6)}`,
        },
      ];
      const conversation = (turns: number) => Array.from({ length: turns }, (_, index) => turn(index + 1)).flat();
      const manifest: AgentManifest = {
        id: 'shared-airline',
        model: 'gpt-4o',
        contextStrategy: {
          type: 'plugin',
          pluginId: 'std-summarization-strategy',
          config: { threshold: 2, batchTurns: 2, checkSummaries: false, retryBackoffMs: 0 },
        },
      };
      const open = async (llm: ILLMClient) => {
        const store = new RedisContextStore({ url: server.url });
        stores.push(store);
        return (await (await runtimeWith({ store, llm })).loadAgent(manifest)).forSession('shared-1');
      };
      // Writer A answers at once; writer B's model answers when released.
      const a = await open(
        new ScriptedLLMClient([
          '<summary>A folded turns 1-2: RES1001, RES1002.</summary>',
          '<summary>A folded turns 1-4 again: RES1001 to RES1004.</summary>',
        ]),
      );
      let release!: () => void;
      const held = new Promise<void>((resolve) => (release = resolve));
      const bModel = new ScriptedLLMClient([
        async () => (await held, "<summary>B folded turns 3-4 onto A's summary: RES1003, RES1004.</summary>"),
      ]);
      const b = await open(bModel);

      // A folds turns 1-2 (the compaction of the session's oldest turns).
      await a.onTurnComplete(conversation(3));
      await a.whenIdle!();
      const folded = (await a.epochs()).filter((epoch) => epoch.kind === 'fold');
      expect(folded.map((epoch) => epoch.range)).toEqual([{ from: 0, to: 4 }]);

      // B, a turn later, claims and starts folding turns 3-4 on top of A's summary…
      b.onTurnComplete(conversation(5)).catch(() => undefined);
      for (let waited = 0; bModel.callCount === 0 && waited < 200; waited++)
        await new Promise((resolve) => setTimeout(resolve, 10));
      expect(bModel.callCount).toBe(1);
      // …while A undoes its fold: the summary B builds on is gone.
      await a.undo(folded[0]!.id);
      release();
      await b.whenIdle!();

      // B's commit was refused by compare-and-set, computed again from what A left, and wrote nothing over it.
      const bPayload = await b.composePayload(SYSTEM, conversation(5), []);
      expect(requestText(bPayload)).not.toContain('B folded');
      expect(bPayload.stats.summarized).toBe(0);
      expect((await b.epochs()).filter((epoch) => epoch.kind === 'fold')).toEqual([]);
      const record = await stores[0]!.get<{ summary: unknown; fold: unknown }>({
        agentId: manifest.id,
        sessionId: 'shared-1',
        kind: 'summary',
        name: 'buffer',
      });
      expect(record).toMatchObject({ summary: null, fold: null });

      // The next fold (a turn later: one attempt a turn) starts from the current state, no summary, not from the one B
      // read.
      await a.onTurnComplete(conversation(6));
      await a.whenIdle!();
      const refolded = (await b.epochs()).filter((epoch) => epoch.kind === 'fold');
      expect(refolded.map((epoch) => epoch.range)).toEqual([{ from: 0, to: 4 }]);
    }, 30_000);
  });
});
