/** @jest-environment <rootDir>/src/testing/native-require.test.env.ts */
jest.mock('ai', () => nativeRequire('ai'));
jest.mock('ai/test', () => nativeRequire('ai/test'));

import * as fs from 'node:fs';
import * as path from 'node:path';

import {
  type AssistantMessage,
  type ChatMessage,
  type ContextRuntimeOptions,
  createTokenCounter,
  hasContributedTools,
  type IContextManager,
} from '@ctxkit/core';
import { contentText } from '@ctxkit/core/strategy-kit';
import {
  type AdapterReplay,
  adapterReplays,
  type ConversationRecord,
  recordedToolOutputs,
  recordedTurns,
  ScriptedLLMClient,
  standardStrategyConfigs,
  unpairedCalls,
} from '@ctxkit/core/testing';
import { generateText, jsonSchema, type ModelMessage, stepCountIs, tool, type ToolSet, wrapLanguageModel } from 'ai';
import { MockLanguageModelV4 } from 'ai/test';

import { createAiSdkContext } from './ai-sdk-context';
import type { LanguageModelCallOptions, LanguageModelFunctionTool, LanguageModelGenerateResult } from './ai-sdk-types';
import { ctxkitMiddleware } from './ctxkit-middleware';
import { requestsOf } from './testing/scripted-model';
import { toChatMessages } from './to-chat-messages';
import { functionToolDefinition } from './tool-definitions';

/**
 * Real conversations replayed through the AI SDK's own `generateText` tool loop with a
 * `MockLanguageModelV4`, through the middleware and through `prepareStep` + `onEnd`, under every
 * standard strategy with no LLM client (the offline summarizer and extractor): tau-bench airline
 * records at 4,000 tokens and the OpenHands runs at 8,000 (their system prompt and tools alone take
 * about 3,300). Every request must fit the budget, carry no unpaired call, and offer the strategy's
 * tools exactly as the strategy's payload for it offers them (never `compact`: nothing could run it);
 * with a client for compaction, `compact` is offered, again exactly when the payload offers it. The
 * caller's messages are never changed, and the conversation the caller keeps
 * (its messages plus each run's response messages) is exactly the turns' questions, the model's
 * answers and the tools' results, once each.
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
const MODES = ['middleware', 'prepareStep'] as const;
type Mode = (typeof MODES)[number];

const replays = (): AdapterReplay[] => adapterReplays(FULL);

/**
 * Each tool answers with its recorded outputs, in call order (logged by call id); defined as the record defines it,
 * else taking any arguments.
 */
function recordedTools(record: ConversationRecord, answered: Map<string, string>): ToolSet {
  const { outputs, called } = recordedToolOutputs(record);
  const defined = new Map((record.tools ?? []).map((definition) => [definition.function.name, definition.function]));
  const tools: ToolSet = {};
  for (const name of new Set([...defined.keys(), ...called])) {
    tools[name] = tool({
      description: defined.get(name)?.description ?? `The airline's ${name.replace(/_/g, ' ')}.`,
      inputSchema: jsonSchema<unknown>(
        (defined.get(name)?.parameters ?? { type: 'object', properties: {}, additionalProperties: true }) as never,
      ),
      execute: async (_input, { toolCallId }) => {
        const output = outputs.get(name)?.shift() ?? 'no recorded output';
        answered.set(toolCallId, output);
        return output;
      },
    });
  }
  return tools;
}

/** A model answering with a turn's recorded replies, in order (a closing text past them); each call gets a fresh id. */
class RecordedModel {
  readonly mock: MockLanguageModelV4;
  /** Every answer given, in order. */
  readonly answers: AssistantMessage[] = [];
  private pending: AssistantMessage[] = [];
  private calls = 0;

  constructor() {
    this.mock = new MockLanguageModelV4({ doGenerate: async () => this.next() });
  }

  script(replies: AssistantMessage[]): void {
    // The recordings reuse call ids across turns, which would make two calls one: each call gets a fresh id.
    this.pending = replies.map((reply) => ({
      ...reply,
      ...(reply.tool_calls
        ? { tool_calls: reply.tool_calls.map((call) => ({ ...call, id: `${call.id}-${++this.calls}` })) }
        : {}),
    }));
  }

  private next(): LanguageModelGenerateResult {
    const answer = this.pending.shift() ?? { role: 'assistant', content: 'Anything else?' };
    this.answers.push(answer);
    const text = answer.content === null ? '' : contentText(answer.content);
    const calls = answer.tool_calls ?? [];
    return {
      content: [
        ...(text !== '' ? [{ type: 'text' as const, text }] : []),
        ...calls.map((call) => ({
          type: 'tool-call' as const,
          toolCallId: call.id,
          toolName: call.function.name,
          input: call.function.arguments || '{}',
        })),
      ],
      finishReason: calls.length > 0 ? { unified: 'tool-calls', raw: 'tool_calls' } : { unified: 'stop', raw: 'stop' },
      usage: {
        inputTokens: { total: 10, noCache: 10, cacheRead: 0, cacheWrite: 0 },
        outputTokens: { total: 5, text: 5, reasoning: 0 },
      },
      warnings: [],
    };
  }
}

/** A key of a message: its role, text, calls (id, name, arguments) and the call it answers. */
function messageKey(message: ChatMessage): string {
  const calls =
    message.role === 'assistant'
      ? (message.tool_calls ?? []).map((call) => [
          call.id,
          call.function.name,
          JSON.stringify(JSON.parse(call.function.arguments || '{}')),
        ])
      : [];
  return JSON.stringify([
    message.role,
    message.content === null ? '' : contentText(message.content),
    calls,
    message.role === 'tool' ? message.tool_call_id : null,
  ]);
}

function functionTools(request: LanguageModelCallOptions): LanguageModelFunctionTool[] {
  return (request.tools ?? []).filter((offered): offered is LanguageModelFunctionTool => offered.type === 'function');
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

/** The strategy's own tools each payload of `manager` offers, in order of composition (sorted names). */
function watchOffers(manager: IContextManager): { own: ReadonlySet<string>; offered: string[][] } {
  const own = new Set(
    hasContributedTools(manager)
      ? manager.contributedTools().map((contributed) => contributed.definition.function.name)
      : [],
  );
  const offered: string[][] = [];
  const compose = manager.composePayload.bind(manager);
  manager.composePayload = async (...args) => {
    const payload = await compose(...args);
    offered.push(
      payload.tools
        .map((definition) => definition.function.name)
        .filter((name) => own.has(name))
        .sort(),
    );
    return payload;
  };
  return { own, offered };
}

interface Outcome {
  failures: string[];
  requests: number;
  /** Requests that offered `compact`. */
  compactOffered: number;
}

/** Replays one record; returns what went wrong and the number of requests. */
async function replay(
  mode: Mode,
  pluginId: string,
  config: Record<string, unknown>,
  { record, ceiling }: AdapterReplay,
  runtimeOptions?: ContextRuntimeOptions,
): Promise<Outcome> {
  const failures: string[] = [];
  let compactOffered = 0;
  const options = {
    pluginId,
    config: { ...config, maxContextTokens: ceiling, reserveOutputTokens: 0 },
    sessionId: 'replay',
    waitForIdle: true,
    ...(runtimeOptions ? { runtimeOptions } : {}),
  };
  // The middleware, as documented; prepareStep + onEnd, deprecated, on the context that still offers them.
  const middleware = mode === 'middleware' ? ctxkitMiddleware(options) : undefined;
  const context = mode === 'middleware' ? undefined : await createAiSdkContext(options);
  try {
    const { own, offered } = watchOffers(middleware ? await middleware.getManager() : context!.manager);
    const model = new RecordedModel();
    const answered = new Map<string, string>();
    const tools = middleware
      ? await middleware.tools(recordedTools(record, answered))
      : context!.tools(recordedTools(record, answered));
    let conversation: ModelMessage[] = [];
    const expected: ChatMessage[] = [];
    for (const turn of recordedTurns(record.history)) {
      model.script(turn.replies);
      const messages: ModelMessage[] = [...conversation, { role: 'user', content: turn.user }];
      const before = JSON.stringify(messages);
      const given = model.answers.length;
      const result = middleware
        ? await generateText({
            model: wrapLanguageModel({ model: model.mock, middleware }),
            system: record.systemPrompt,
            messages,
            tools,
            stopWhen: stepCountIs(200),
          })
        : await generateText({
            model: model.mock,
            system: record.systemPrompt,
            messages,
            tools,
            prepareStep: context!.prepareStep,
            onEnd: context!.onEnd,
            stopWhen: stepCountIs(200),
          });
      if (JSON.stringify(messages) !== before)
        failures.push(`${record.id}: the caller's messages changed during the run of "${turn.user.slice(0, 40)}"`);
      conversation = [...messages, ...result.responseMessages];
      expected.push({ role: 'user', content: turn.user });
      for (const answer of model.answers.slice(given)) {
        expected.push(answer);
        for (const call of answer.tool_calls ?? [])
          expected.push({ role: 'tool', tool_call_id: call.id, content: answered.get(call.id) ?? '(not run)' });
      }
    }
    const kept = toChatMessages(conversation).map(messageKey);
    const made = expected.map(messageKey);
    const diverged = made.findIndex((key, index) => kept[index] !== key);
    if (kept.length !== made.length || diverged >= 0)
      failures.push(
        `${record.id}: the conversation holds ${kept.length} messages, the runs made ${made.length}, first ` +
          `difference at ${diverged >= 0 ? diverged : made.length}`,
      );
    requestsOf(model.mock).forEach((request, index) => {
      const where = `${record.id} request ${index + 1}`;
      const sent = toChatMessages(request.prompt);
      for (const problem of unpairedCalls(sent)) failures.push(`${where}: ${problem}`);
      const tokens =
        counter.countMessages(sent) + counter.countTools(functionTools(request).map(functionToolDefinition));
      if (tokens > ceiling) failures.push(`${where}: ${tokens} tokens over ${ceiling}`);
      // One composition per request, in order.
      const sentOwn = functionTools(request)
        .map((one) => one.name)
        .filter((name) => own.has(name))
        .sort();
      if (sentOwn.join() !== offered[index]?.join())
        failures.push(
          `${where}: offered [${sentOwn.join(', ')}], the strategy's payload [${offered[index]?.join(', ')}]`,
        );
      if (sentOwn.includes('compact')) {
        compactOffered++;
        if (!runtimeOptions?.llm) failures.push(`${where}: compact offered with no LLM client`);
      }
    });
    if (offered.length !== requestsOf(model.mock).length)
      failures.push(`${record.id}: ${offered.length} compositions for ${requestsOf(model.mock).length} requests`);
    return { failures, requests: requestsOf(model.mock).length, compactOffered };
  } finally {
    await (middleware ?? context!).dispose();
  }
}

describe.each(MODES)(
  'generateText through the %s (prepareStep deprecated), replaying tau-bench airline and OpenHands conversations',
  (mode) => {
    test.each(STRATEGIES.filter(([id]) => FULL || QUICK_STRATEGIES.has(id)))(
      "%s: every request within budget, with no unpaired call and the strategy's tools as its payload offers them " +
        '(never compact); the conversation holds each message once',
      async (pluginId, config) => {
        const failures: string[] = [];
        let requests = 0;
        for (const one of replays()) {
          const outcome = await replay(mode, pluginId, config, one).catch((error: unknown) => ({
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
      'the tool output cache with a client for compaction: compact is offered, in exactly the requests whose ' +
        'payload offers it',
      async () => {
        const failures: string[] = [];
        let compactOffered = 0;
        for (const one of replays()) {
          const outcome = await replay(mode, 'std-tool-output-cache-strategy', {}, one, {
            llm: compactionClient(),
          }).catch((error: unknown) => ({
            failures: [`${one.record.id}: ${String(error)}`],
            requests: 0,
            compactOffered: 0,
          }));
          failures.push(...outcome.failures);
          compactOffered += outcome.compactOffered;
        }
        expect(failures).toEqual([]);
        expect(compactOffered).toBeGreaterThan(0);
      },
      FULL ? 300000 : 60000,
    );
  },
);
