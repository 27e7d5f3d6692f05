import * as fs from 'node:fs';
import * as path from 'node:path';

import { type AssistantMessage, type ChatMessage, type ContextRuntimeOptions, createTokenCounter } from '@ctxkit/core';
import { contentText } from '@ctxkit/core/strategy-kit';
import {
  type AdapterReplay,
  adapterReplays,
  type ConversationRecord,
  recordedToolOutputs,
  recordedTurns,
  ScriptedLLMClient,
  standardStrategyConfigs,
} from '@ctxkit/core/testing';
import {
  Agent,
  type AgentInputItem,
  type AgentOutputItem,
  type FunctionTool,
  MemorySession,
  run,
  setTracingDisabled,
  tool,
} from '@openai/agents';

import { CtxkitSession, toAgentInputItems, toChatMessages, toToolDefinitions } from './index';
import { ScriptedAgentsModel } from './testing/scripted-agents-model';

setTracingDisabled(true);

/**
 * Real conversations replayed through the Agents SDK's own `run()` with a `CtxkitSession` over the
 * SDK's `MemorySession` and the model it wraps, under every standard strategy with no LLM client
 * (the offline summarizer and extractor): tau-bench airline records at 4,000 tokens and the
 * OpenHands runs at 8,000 (their system prompt and tools alone take about 3,300). Every request must
 * fit the budget and carry no unpaired call; each request is composed once, right before it is sent
 * (the first of a run as every other), and carries exactly the strategy tools its own payload offers
 * (`compact` never with no LLM client, and with a client for compaction it is); the stored session
 * holds exactly the runs' items.
 * `CTXKIT_CONFORMANCE_DEPTH=full` (`npm run test:conformance`) replays 15 tau-bench records and the
 * three OpenHands runs under the five strategies; otherwise three records, one run, two strategies.
 */
const FULL = process.env.CTXKIT_CONFORMANCE_DEPTH === 'full';
const counter = createTokenCounter({ model: 'gpt-4o' });
const airlineSchema = JSON.parse(
  fs.readFileSync(
    path.join(__dirname, '..', '..', '..', 'plugins', 'entity-extraction', 'schemas', 'airline-booking.schema.json'),
    'utf8',
  ),
) as Record<string, unknown>;

const STRATEGIES = standardStrategyConfigs(airlineSchema);
const QUICK_STRATEGIES = new Set(['std-summarization-strategy', 'std-tool-output-cache-strategy']);

const replays = (): AdapterReplay[] => adapterReplays(FULL);

/**
 * Each tool answers with its recorded outputs, in call order; defined as the record defines it, else taking any
 * arguments.
 */
function recordedTools(record: ConversationRecord): FunctionTool[] {
  const { outputs, called } = recordedToolOutputs(record);
  const defined = new Map((record.tools ?? []).map((definition) => [definition.function.name, definition.function]));
  return [...new Set([...defined.keys(), ...called])].map(
    (name) =>
      tool({
        name,
        description: defined.get(name)?.description ?? `The airline's ${name.replace(/_/g, ' ')}.`,
        parameters: (defined.get(name)?.parameters ?? {
          type: 'object',
          properties: {},
          additionalProperties: true,
        }) as never,
        strict: false,
        execute: async () => outputs.get(name)?.shift() ?? 'no recorded output',
      }) as unknown as FunctionTool,
  );
}

/** A stable key of an item: its type, role, call id and content. */
function contentKey(item: AgentInputItem): string {
  const record = item as Record<string, unknown>;
  return JSON.stringify([
    record.type ?? 'message',
    record.role ?? null,
    record.callId ?? null,
    record.name ?? null,
    record.arguments ?? null,
    record.content ?? null,
    record.output ?? null,
  ]);
}

/**
 * The unpaired calls and results of a request: a call whose result does not follow it before the next user message, a
 * result without its call.
 */
function unpaired(input: readonly AgentInputItem[]): string[] {
  const problems: string[] = [];
  const open = new Set<string>();
  const seen = new Set<string>();
  const close = () => {
    for (const id of open) problems.push(`call ${id} has no result`);
    open.clear();
  };
  for (const item of input) {
    const record = item as { type?: string; role?: string; callId?: string };
    if (record.type === 'function_call') {
      open.add(record.callId!);
      seen.add(record.callId!);
    } else if (record.type === 'function_call_result') {
      if (!seen.has(record.callId!)) problems.push(`result ${record.callId} has no call before it`);
      open.delete(record.callId!);
    } else if (record.role === 'user') close();
  }
  close();
  return problems;
}

/** Tokens of a request as the provider gets it: instructions, input and function tools. */
function requestTokens(request: ScriptedAgentsModel['requests'][number]): number {
  const messages: ChatMessage[] = [
    { role: 'system', content: request.systemInstructions ?? '' },
    ...toChatMessages(request.input as AgentInputItem[]),
  ];
  return counter.countMessages(messages) + counter.countTools(toToolDefinitions(request.tools as never));
}

/** A model client for the strategy's own calls (compaction summaries). */
function compactionClient(): ScriptedLLMClient {
  return new ScriptedLLMClient(
    [
      '<retain>The booking and its reservations.</retain>\n<summary>The customer asked about the reservations; the ' +
        'agent looked them up.</summary>',
    ],
    { repeatLast: true },
  );
}

interface Outcome {
  failures: string[];
  requests: number;
  /** Requests that offered `compact`. */
  compactOffered: number;
}

/** Replays one record; returns what went wrong and the number of requests. */
async function replay(
  pluginId: string,
  config: Record<string, unknown>,
  { record, ceiling }: AdapterReplay,
  runtimeOptions?: ContextRuntimeOptions,
): Promise<Outcome> {
  const failures: string[] = [];
  let compactOffered = 0;
  const stored = new MemorySession({ sessionId: 'replay' });
  const session = new CtxkitSession({
    pluginId,
    config: { ...config, maxContextTokens: ceiling, reserveOutputTokens: 0 },
    session: stored,
    waitForIdle: true,
    ...(runtimeOptions ? { runtimeOptions } : {}),
  });
  try {
    // The strategy's own tools every composition offered, in order, and for each model call the
    // composition it got (the wrapped model composes right before it sends).
    const strategyTools = await session.tools();
    const own = new Set(strategyTools.map((contributed) => contributed.name));
    const compositions: string[][] = [];
    const compose = session.manager.composePayload.bind(session.manager);
    session.manager.composePayload = async (...args) => {
      const payload = await compose(...args);
      compositions.push(
        payload.tools
          .map((definition) => definition.function.name)
          .filter((name) => own.has(name))
          .sort(),
      );
      return payload;
    };
    const composedFor: number[] = [];
    const model = new ScriptedAgentsModel();
    const getResponse = model.getResponse.bind(model);
    model.getResponse = (request) => {
      composedFor.push(compositions.length - 1);
      return getResponse(request);
    };
    const agent = new Agent({
      name: 'replay',
      instructions: record.systemPrompt,
      model: session.wrapModel(model),
      tools: [...recordedTools(record), ...strategyTools],
    });
    const expected: AgentInputItem[] = [];
    let calls = 0;
    for (const turn of recordedTurns(record.history)) {
      // The recordings reuse call ids across turns, which the Agents SDK would merge: each call gets a fresh one.
      model.script(
        turn.replies.map(
          (reply) =>
            toAgentInputItems([
              {
                ...reply,
                ...(reply.tool_calls
                  ? { tool_calls: reply.tool_calls.map((call) => ({ ...call, id: `${call.id}-${++calls}` })) }
                  : {}),
              },
            ]) as AgentOutputItem[],
        ),
      );
      const result = await run(agent, turn.user, { session, maxTurns: 200 });
      expected.push(
        { role: 'user', content: turn.user },
        ...(result.newItems.map((item) => item.rawItem) as AgentInputItem[]),
      );
    }
    const kept = (await stored.getItems()).map(contentKey);
    const made = expected.map(contentKey);
    const diverged = made.findIndex((key, index) => kept[index] !== key);
    if (kept.length !== made.length || diverged >= 0)
      failures.push(
        `${record.id}: stored ${kept.length} items, the runs made ${made.length}, first difference at ` +
          `item ${diverged >= 0 ? diverged : made.length}`,
      );
    if ((await session.getItems()).map(contentKey).join('\n') !== kept.join('\n'))
      failures.push(`${record.id}: getItems is not the stored session's items`);
    if (compositions.length !== model.requests.length)
      failures.push(`${record.id}: ${compositions.length} compositions for ${model.requests.length} requests`);
    model.requests.forEach((request, index) => {
      const where = `${record.id} request ${index + 1}`;
      for (const problem of unpaired(request.input as AgentInputItem[])) failures.push(`${where}: ${problem}`);
      const tokens = requestTokens(request);
      if (tokens > ceiling) failures.push(`${where}: ${tokens} tokens over ${ceiling}`);
      const sent = request.tools
        .map((one) => (one as { name?: string }).name ?? '')
        .filter((name) => own.has(name))
        .sort();
      const current = compositions[composedFor[index]!] ?? [];
      if (composedFor[index] !== index) failures.push(`${where}: sent with composition ${composedFor[index]! + 1}`);
      if (sent.join() !== current.join())
        failures.push(`${where}: offered [${sent.join(', ')}], the composition for the call [${current.join(', ')}]`);
      if (sent.includes('compact') !== current.includes('compact'))
        failures.push(
          `${where}: compact ${sent.includes('compact') ? 'offered' : 'missing'}, the payload [${current.join(', ')}]`,
        );
      if (sent.includes('compact')) {
        compactOffered++;
        if (!runtimeOptions?.llm) failures.push(`${where}: compact offered with no LLM client`);
      }
    });
    return { failures, requests: model.requests.length, compactOffered };
  } finally {
    await session.dispose();
  }
}

describe('CtxkitSession replaying tau-bench airline and OpenHands conversations through run()', () => {
  test.each(STRATEGIES.filter(([id]) => FULL || QUICK_STRATEGIES.has(id)))(
    '%s: every request within budget, with no unpaired call and no compact; the store holds each run item once',
    async (pluginId, config) => {
      const failures: string[] = [];
      let requests = 0;
      for (const one of replays()) {
        const outcome = await replay(pluginId, config, one).catch((error: unknown) => ({
          failures: [`${one.record.id}: ${String(error)}`],
          requests: 0,
          compactOffered: 0,
        }));
        failures.push(...outcome.failures);
        requests += outcome.requests;
      }
      expect(failures).toEqual([]);
      expect(requests).toBeGreaterThan(FULL ? 300 : 50);
    },
    FULL ? 300000 : 60000,
  );

  test(
    'the tool output cache with a client for compaction: compact is offered, in exactly the requests whose payload ' +
      'offers it',
    async () => {
      const failures: string[] = [];
      let compactOffered = 0;
      for (const one of replays()) {
        const outcome = await replay('std-tool-output-cache-strategy', {}, one, { llm: compactionClient() }).catch(
          (error: unknown) => ({ failures: [`${one.record.id}: ${String(error)}`], requests: 0, compactOffered: 0 }),
        );
        failures.push(...outcome.failures);
        compactOffered += outcome.compactOffered;
      }
      expect(failures).toEqual([]);
      expect(compactOffered).toBeGreaterThan(0);
    },
    FULL ? 300000 : 60000,
  );
});
