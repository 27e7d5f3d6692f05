import * as fs from 'node:fs';
import * as path from 'node:path';

import {
  type AssistantMessage,
  type ChatMessage,
  type ContextRuntimeOptions,
  createTokenCounter,
  hasContributedTools,
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
import { AIMessage, type BaseMessage, HumanMessage } from '@langchain/core/messages';
import { type StructuredToolInterface, tool } from '@langchain/core/tools';
import { createAgent } from 'langchain';

import { type RecordedModelRequest, RecordingChatModel } from './__fixtures__/recording-chat-model';
import { ctxkitMiddleware } from './ctxkit-middleware';
import { toChatMessages } from './to-chat-messages';
import { toolNameOf, toToolDefinition } from './tool-definitions';

/**
 * Real conversations replayed through LangChain's own `createAgent` loop with a scripted chat model
 * and the ctxkit middleware, under every standard strategy with no LLM client (the offline
 * summarizer and extractor): tau-bench airline records at 4,000 tokens and the OpenHands runs at
 * 8,000 (their system prompt and tools alone take about 3,300). Every request must fit the budget,
 * carry no unpaired call, and bind the strategy's tools exactly as the strategy's payload for it
 * offers them (never `compact`: nothing could run it); with a client for compaction, `compact` is
 * bound, again exactly when the payload offers it. The messages given to a run are never changed, and the agent's state
 * (the conversation the caller keeps) is exactly the turns' questions, the model's answers and the tools' results, once
 * each. `CTXKIT_CONFORMANCE_DEPTH=full` (`npm run test:conformance`) replays 15 tau-bench records and the three
 * OpenHands runs under the five strategies; otherwise three records, one run, two strategies.
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
 * Each tool answers with its recorded outputs, in call order (logged by call id); defined as the record defines it,
 * else taking any arguments.
 */
function recordedTools(record: ConversationRecord, answered: Map<string, string>): StructuredToolInterface[] {
  const { outputs, called } = recordedToolOutputs(record);
  const defined = new Map((record.tools ?? []).map((definition) => [definition.function.name, definition.function]));
  return [...new Set([...defined.keys(), ...called])].map(
    (name) =>
      tool(
        async (_input: unknown, config: { toolCall?: { id?: string } }) => {
          const output = outputs.get(name)?.shift() ?? 'no recorded output';
          answered.set(config.toolCall?.id ?? '', output);
          return output;
        },
        {
          name,
          description: defined.get(name)?.description ?? `The airline's ${name.replace(/_/g, ' ')}.`,
          schema: (defined.get(name)?.parameters ?? {
            type: 'object',
            properties: {},
            additionalProperties: true,
          }) as never,
        },
      ) as unknown as StructuredToolInterface,
  );
}

/**
 * A chat model answering with a turn's recorded replies, in order (a closing text past them); each call gets a fresh
 * id.
 */
class RecordedModel {
  readonly model: RecordingChatModel;
  /** Every answer given, in order. */
  readonly answers: AssistantMessage[] = [];
  private pending: AssistantMessage[] = [];
  private calls = 0;

  constructor() {
    this.model = new RecordingChatModel(() => this.next());
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

  private next(): AIMessage {
    const answer = this.pending.shift() ?? { role: 'assistant', content: 'Anything else?' };
    this.answers.push(answer);
    return new AIMessage({
      content: answer.content === null ? '' : contentText(answer.content),
      tool_calls: (answer.tool_calls ?? []).map((call) => ({
        id: call.id,
        name: call.function.name,
        args: JSON.parse(call.function.arguments || '{}') as Record<string, unknown>,
        type: 'tool_call' as const,
      })),
    });
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

/** What a request costs by an independent count: the messages and the bound tools, as ctxkit counts them. */
function requestTokens(request: RecordedModelRequest): number {
  return (
    counter.countMessages(toChatMessages(request.messages)) + counter.countTools(request.tools.map(toToolDefinition))
  );
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
  /** Requests that bound `compact`. */
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
  // The strategy's own tools each payload offered, in order of composition (one per model call).
  const offered: string[][] = [];
  let own: ReadonlySet<string> = new Set();
  const ctxkit = ctxkitMiddleware({
    pluginId,
    config: { ...config, maxContextTokens: ceiling, reserveOutputTokens: 0 },
    waitForIdle: true,
    onPayload: (payload) =>
      offered.push(
        payload.tools
          .map((definition) => definition.function.name)
          .filter((name) => own.has(name))
          .sort(),
      ),
    ...(runtimeOptions ? { runtimeOptions } : {}),
  });
  try {
    const manager = (await ctxkit.getAgent()).forSession('replay');
    own = new Set(
      hasContributedTools(manager)
        ? manager.contributedTools().map((contributed) => contributed.definition.function.name)
        : [],
    );
    const scripted = new RecordedModel();
    const answered = new Map<string, string>();
    const agent = createAgent({
      model: scripted.model,
      tools: recordedTools(record, answered),
      systemPrompt: record.systemPrompt,
      middleware: [ctxkit],
    });
    let conversation: BaseMessage[] = [];
    const expected: ChatMessage[] = [];
    for (const turn of recordedTurns(record.history)) {
      scripted.script(turn.replies);
      const messages: BaseMessage[] = [...conversation, new HumanMessage(turn.user)];
      const before = JSON.stringify(toChatMessages(messages).map(messageKey));
      const given = scripted.answers.length;
      const state = await agent.invoke({ messages }, { configurable: { thread_id: 'replay' }, recursionLimit: 1000 });
      if (JSON.stringify(toChatMessages(messages).map(messageKey)) !== before)
        failures.push(`${record.id}: the messages given changed during the run of "${turn.user.slice(0, 40)}"`);
      conversation = state.messages;
      expected.push({ role: 'user', content: turn.user });
      for (const answer of scripted.answers.slice(given)) {
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
        `${record.id}: the state holds ${kept.length} messages, the runs made ${made.length}, first difference ` +
          `at ${diverged >= 0 ? diverged : made.length}`,
      );
    scripted.model.requests.forEach((request, index) => {
      const where = `${record.id} request ${index + 1}`;
      for (const problem of unpairedCalls(toChatMessages(request.messages))) failures.push(`${where}: ${problem}`);
      const tokens = requestTokens(request);
      if (tokens > ceiling) failures.push(`${where}: ${tokens} tokens over ${ceiling}`);
      const boundOwn = request.tools
        .map((bound) => toolNameOf(bound) ?? '')
        .filter((name) => own.has(name))
        .sort();
      if (boundOwn.join() !== offered[index]?.join())
        failures.push(
          `${where}: bound [${boundOwn.join(', ')}], the strategy's payload [${offered[index]?.join(', ')}]`,
        );
      if (boundOwn.includes('compact')) {
        compactOffered++;
        if (!runtimeOptions?.llm) failures.push(`${where}: compact bound with no LLM client`);
      }
    });
    if (offered.length !== scripted.model.requests.length)
      failures.push(`${record.id}: ${offered.length} compositions for ${scripted.model.requests.length} requests`);
    return { failures, requests: scripted.model.requests.length, compactOffered };
  } finally {
    await ctxkit.dispose();
  }
}

describe('createAgent with the ctxkit middleware, replaying tau-bench airline and OpenHands conversations', () => {
  test.each(STRATEGIES.filter(([id]) => FULL || QUICK_STRATEGIES.has(id)))(
    "%s: every request within budget, with no unpaired call and the strategy's tools bound as its payload offers " +
      'them (never compact); the state holds each message once',
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
    'the tool output cache with a client for compaction: compact is bound, in exactly the requests whose payload ' +
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
