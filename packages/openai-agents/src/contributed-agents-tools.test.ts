import { createTokenCounter, type ToolDefinition } from '@ctxkit/core';
import { contentText } from '@ctxkit/core/strategy-kit';
import { ScriptedLLMClient } from '@ctxkit/core/testing';
import {
  Agent,
  type AgentInputItem,
  type AgentOutputItem,
  type ModelRequest,
  run,
  setTracingDisabled,
  tool,
} from '@openai/agents';

import { CtxkitSession, toChatMessages, toToolDefinitions } from './index';
import { assistantText, functionCall, ScriptedAgentsModel } from './testing/scripted-agents-model';

setTracingDisabled(true);

const counter = createTokenCounter({ model: 'gpt-4o' });
const INSTRUCTIONS = 'You are a build engineer. Read the logs before you answer.';
const CEILING = 4000;
const PLACEHOLDER = /\[tool output trimmed; ref=(to_[0-9a-f]{32})\]/;

/** A build log of `turn`: 60 numbered lines, about 1,200 tokens. */
function buildLog(turn: number): string {
  return Array.from(
    { length: 60 },
    (_, row) => `build ${turn} step ${row}: compiled module_${turn}_${row}.o in ${row * 7} ms, warnings ${row % 5}`,
  ).join('\n');
}

function readLogTool() {
  return tool({
    name: 'read_build_log',
    description: 'The log of a build.',
    parameters: {
      type: 'object',
      properties: { build: { type: 'integer' } },
      required: ['build'],
      additionalProperties: false,
    },
    strict: true,
    execute: async (input) => buildLog((input as { build: number }).build),
  });
}

function textOf(request: ModelRequest): string {
  return toChatMessages(request.input as AgentInputItem[])
    .map((message) => contentText(message.content ?? null))
    .join('\n');
}

function toolNames(request: ModelRequest): string[] {
  return (request.tools as Array<{ name: string }>).map((definition) => definition.name);
}

/** The model reads the first trimmed output it sees back with `tool_output_cache`. */
function readTrimmedBack(request: ModelRequest): AgentOutputItem[] {
  const ref = PLACEHOLDER.exec(textOf(request))?.[1];
  return ref
    ? [functionCall('call_read_back', 'tool_output_cache', { ref_id: ref, limit: 200 })]
    : [assistantText('Nothing was trimmed.')];
}

async function openSession(): Promise<CtxkitSession> {
  const session = new CtxkitSession({
    pluginId: 'std-tool-output-cache-strategy',
    config: { maxContextTokens: CEILING, reserveOutputTokens: 0 },
    sessionId: 'builds',
    waitForIdle: true,
  });
  await session.getAgent();
  return session;
}

describe('CtxkitSession#tools', () => {
  test(
    "gives the strategy's tools to the agent: offered once an output is trimmed, and run by the strategy with " +
      "the call's id",
    async () => {
      const session = await openSession();
      try {
        const model = new ScriptedAgentsModel();
        const agent = new Agent({
          name: 'builds',
          instructions: INSTRUCTIONS,
          model: session.wrapModel(model),
          tools: [readLogTool(), ...(await session.tools())],
        });
        for (let turn = 1; turn <= 4; turn++) {
          model.script([
            [functionCall(`call_${turn}`, 'read_build_log', { build: turn })],
            [assistantText(`Build ${turn} is green.`)],
          ]);
          await run(agent, `Is build ${turn} green?`, { session });
        }
        model.script([readTrimmedBack, [assistantText('Build 1 compiled module_1_0.o first.')]]);
        const result = await run(agent, 'Which module did build 1 compile first?', { session });
        expect(result.finalOutput).toBe('Build 1 compiled module_1_0.o first.');

        const first = model.requests[0]!;
        expect(toolNames(first)).toEqual(['read_build_log']);
        const readBack = model.requests.find(
          (request) => PLACEHOLDER.test(textOf(request)) && toolNames(request).includes('tool_output_cache'),
        );
        expect(readBack).toBeDefined();
        // The read back went through the strategy: the next request holds the output's lines as the tool result.
        const stored = await session.getItems();
        const answer = stored.find(
          (item) =>
            (item as { type?: string; callId?: string }).type === 'function_call_result' &&
            (item as { callId?: string }).callId === 'call_read_back',
        );
        const output = JSON.stringify(answer);
        const refId = PLACEHOLDER.exec(textOf(readBack!))![1]!;
        expect(output).toContain(`tool_output_cache ref=${refId}`);
        expect(output).toMatch(/build \d step 0: compiled module_\d_0\.o/);
        // Every request within the ceiling, its tools counted as the strategy defined them.
        for (const request of model.requests) {
          const messages = [
            { role: 'system' as const, content: request.systemInstructions ?? '' },
            ...toChatMessages(request.input as AgentInputItem[]),
          ];
          expect(
            counter.countMessages(messages) + counter.countTools(toToolDefinitions(request.tools as never)),
          ).toBeLessThanOrEqual(CEILING);
        }
      } finally {
        await session.dispose();
      }
    },
  );

  test(
    'offers compact exactly when the strategy offers it: on no request without an LLM client, on every request ' +
      'with one',
    async () => {
      /** The tool names of every request of three runs, each a log read then an answer. */
      async function offeredOverThreeRuns(llm?: ScriptedLLMClient): Promise<string[][]> {
        const session = new CtxkitSession({
          pluginId: 'std-tool-output-cache-strategy',
          config: { maxContextTokens: 16000 },
          ...(llm ? { runtimeOptions: { llm } } : {}),
        });
        try {
          const model = new ScriptedAgentsModel();
          const agent = new Agent({
            name: 'builds',
            instructions: INSTRUCTIONS,
            model: session.wrapModel(model),
            tools: [readLogTool(), ...(await session.tools())],
          });
          for (let turn = 1; turn <= 3; turn++) {
            model.script([
              [functionCall(`call_${turn}`, 'read_build_log', { build: turn })],
              [assistantText(`Build ${turn} is green.`)],
            ]);
            await run(agent, `Is build ${turn} green?`, { session });
          }
          expect(model.requests).toHaveLength(6);
          return model.requests.map((request) => toolNames(request).sort());
        } finally {
          await session.dispose();
        }
      }
      expect(await offeredOverThreeRuns()).toEqual(Array.from({ length: 6 }, () => ['read_build_log']));
      expect(await offeredOverThreeRuns(new ScriptedLLMClient([], { repeatLast: true }))).toEqual(
        Array.from({ length: 6 }, () => ['compact', 'read_build_log']),
      );
    },
  );

  test(
    "sends the session's pin tools (a manifest with pinTool) on every request, as the kernel offers " + 'them',
    async () => {
      const session = new CtxkitSession({
        manifest: {
          id: 'pinning',
          pinTool: true,
          contextStrategy: {
            type: 'plugin',
            pluginId: 'std-tool-output-cache-strategy',
            config: { maxContextTokens: 16000 },
          },
        },
      });
      try {
        const model = new ScriptedAgentsModel();
        const agent = new Agent({
          name: 'builds',
          instructions: INSTRUCTIONS,
          model: session.wrapModel(model),
          tools: [readLogTool(), ...(await session.tools())],
        });
        model.script([[functionCall('call_1', 'read_build_log', { build: 1 })], [assistantText('Build 1 is green.')]]);
        await run(agent, 'Is build 1 green?', { session });
        for (const request of model.requests)
          expect(toolNames(request).sort()).toEqual(['pin_context', 'read_build_log', 'unpin_context']);
      } finally {
        await session.dispose();
      }
    },
  );

  test('answers a failing call with its error for the model (an unknown ref), without throwing', async () => {
    const session = await openSession();
    try {
      const cacheTool = session.contributedTools().find((made) => made.name === 'tool_output_cache');
      const output = await cacheTool!.invoke({} as never, JSON.stringify({ ref_id: 'to_unknown' }), {
        toolCall: {
          type: 'function_call',
          callId: 'call_bad',
          name: 'tool_output_cache',
          arguments: '{"ref_id":"to_unknown"}',
        },
      });
      expect(String(output)).toMatch(/^Error: /);
      expect(String(output)).toContain('to_unknown');
    } finally {
      await session.dispose();
    }
  });

  test("are the strategy's definitions, and are counted as the strategy wrote them", async () => {
    const session = await openSession();
    try {
      const tools = await session.tools();
      expect(await session.tools()).toBe(tools);
      expect(session.contributedTools()).toBe(tools);
      const names = tools.map((made) => made.name);
      expect(names).toEqual(expect.arrayContaining(['tool_output_cache', 'tool_output_cache_grep']));
      const definitions: ToolDefinition[] = toToolDefinitions(tools);
      const own = (session.manager as unknown as { contributedTools(): Array<{ definition: ToolDefinition }> })
        .contributedTools()
        .map((contributed) => contributed.definition);
      expect(definitions).toEqual(own);
      for (const made of tools)
        expect(made.parameters).toEqual(
          own.find((definition) => definition.function.name === made.name)!.function.parameters,
        );
    } finally {
      await session.dispose();
    }
  });

  test('is empty for a strategy that contributes no tools', async () => {
    const session = new CtxkitSession({ pluginId: 'std-summarization-strategy', config: { maxContextTokens: 3000 } });
    try {
      expect(await session.tools()).toEqual([]);
    } finally {
      await session.dispose();
    }
  });
});
