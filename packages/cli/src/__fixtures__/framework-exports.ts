import Anthropic from '@anthropic-ai/sdk';
import type { MessageParam } from '@anthropic-ai/sdk/resources/messages';
import {
  AIMessage,
  type BaseMessage,
  HumanMessage,
  mapChatMessagesToStoredMessages,
  SystemMessage,
} from '@langchain/core/messages';
import { tool as langChainTool } from '@langchain/core/tools';
import {
  Agent,
  type AgentOutputItem,
  type Model,
  type ModelResponse,
  run,
  setTracingDisabled,
  tool as agentsTool,
  Usage,
} from '@openai/agents';
import { generateText, jsonSchema, stepCountIs, tool as aiTool } from 'ai';
import { MockLanguageModelV4 } from 'ai/test';
import { createAgent } from 'langchain';
import OpenAI from 'openai';
import type { ChatCompletionMessageParam } from 'openai/resources/chat/completions';
import type { ResponseInputItem } from 'openai/resources/responses/responses';

import { RecordingChatModel } from './recording-chat-model';

/**
 * One tool-using conversation, exported by each framework's own serializer: the user names an
 * order, the agent looks it up (`get_order`), tracks the parcel with the tracking number the
 * lookup returned (`track_package`), and answers. Each model is scripted; each tool runs.
 */
export const CONVERSATION = {
  system: 'You are a shop assistant. Look orders up before you answer.',
  question: 'Where is my order A-1042?',
  orderId: 'A-1042',
  tracking: '1Z999AA10123456784',
  order: '{"status":"shipped","tracking":"1Z999AA10123456784"}',
  parcel: 'Out for delivery, arriving today by 18:00.',
  answer: 'Your order A-1042 is out for delivery and arrives today by 18:00.',
};

/** The JSON schema of a tool taking one string argument. */
function oneString(property: string) {
  return {
    type: 'object' as const,
    properties: { [property]: { type: 'string' as const } },
    required: [property],
    additionalProperties: false as const,
  };
}

const ORDER_SCHEMA = oneString('order_id');
const TRACKING_SCHEMA = oneString('tracking_number');

function getOrder(orderId: string): string {
  if (orderId !== CONVERSATION.orderId) throw new Error(`unknown order ${orderId}`);
  return CONVERSATION.order;
}

function trackPackage(tracking: string): string {
  if (tracking !== CONVERSATION.tracking) throw new Error(`unknown tracking number ${tracking}`);
  return CONVERSATION.parcel;
}

/** The two calls the scripted models make, in order: [name, arguments, call id]. */
const CALLS: Array<[string, Record<string, string>, string]> = [
  ['get_order', { order_id: CONVERSATION.orderId }, 'call_order_1'],
  ['track_package', { tracking_number: CONVERSATION.tracking }, 'call_track_2'],
];

/**
 * AI SDK: the user message and `result.responseMessages` (every step's; `response.messages` is the last step's) of a
 * `generateText` run with tools, under its `system`.
 */
export async function aiSdkExport(): Promise<string> {
  const usage = {
    inputTokens: { total: 10, noCache: 10, cacheRead: 0, cacheWrite: 0 },
    outputTokens: { total: 5, text: 5, reasoning: 0 },
  };
  const answers = [
    ...CALLS.map(([name, input, id]) => ({
      content: [{ type: 'tool-call' as const, toolCallId: id, toolName: name, input: JSON.stringify(input) }],
      finishReason: { unified: 'tool-calls' as const, raw: 'tool_calls' },
      usage,
      warnings: [],
    })),
    {
      content: [{ type: 'text' as const, text: CONVERSATION.answer }],
      finishReason: { unified: 'stop' as const, raw: 'stop' },
      usage,
      warnings: [],
    },
  ];
  const model = new MockLanguageModelV4({ doGenerate: async () => answers.shift()! });
  const tools = {
    get_order: aiTool({
      description: 'An order by id.',
      inputSchema: jsonSchema<{ order_id: string }>(ORDER_SCHEMA),
      execute: async ({ order_id }) => getOrder(order_id),
    }),
    track_package: aiTool({
      description: 'A parcel by tracking number.',
      inputSchema: jsonSchema<{ tracking_number: string }>(TRACKING_SCHEMA),
      execute: async ({ tracking_number }) => trackPackage(tracking_number),
    }),
  };
  const messages = [{ role: 'user' as const, content: CONVERSATION.question }];
  const result = await generateText({ model, system: CONVERSATION.system, messages, tools, stopWhen: stepCountIs(5) });
  return JSON.stringify({ system: CONVERSATION.system, messages: [...messages, ...result.responseMessages] }, null, 2);
}

/**
 * LangChain: the messages of a `createAgent` run (system prompt first), as `JSON.stringify` and
 * `mapChatMessagesToStoredMessages` write them.
 */
export async function langChainExports(): Promise<{ constructor: string; stored: string }> {
  const model = new RecordingChatModel((_messages, call) => {
    const [name, args, id] = CALLS[call] ?? [];
    return name
      ? new AIMessage({ content: '', tool_calls: [{ name, args: args!, id: id!, type: 'tool_call' }] })
      : new AIMessage(CONVERSATION.answer);
  });
  const tools = [
    langChainTool(async ({ order_id }: { order_id: string }) => getOrder(order_id), {
      name: 'get_order',
      description: 'An order by id.',
      schema: ORDER_SCHEMA,
    }),
    langChainTool(async ({ tracking_number }: { tracking_number: string }) => trackPackage(tracking_number), {
      name: 'track_package',
      description: 'A parcel by tracking number.',
      schema: TRACKING_SCHEMA,
    }),
  ];
  const agent = createAgent({ model, tools, systemPrompt: CONVERSATION.system });
  const state = await agent.invoke({ messages: [new HumanMessage(CONVERSATION.question)] });
  const messages: BaseMessage[] = [new SystemMessage(CONVERSATION.system), ...state.messages];
  return {
    constructor: JSON.stringify({ messages }),
    stored: JSON.stringify(mapChatMessagesToStoredMessages(messages)),
  };
}

/** A fetch that answers each request with the next JSON body, keeping the request bodies. */
function scriptedFetch(bodies: unknown[], requests: unknown[] = []): typeof fetch {
  return (async (_url: unknown, init?: { body?: unknown }) => {
    requests.push(typeof init?.body === 'string' ? JSON.parse(init.body) : undefined);
    return new Response(JSON.stringify(bodies.shift()), {
      status: 200,
      headers: { 'content-type': 'application/json' },
    });
  }) as typeof fetch;
}

function runTool(name: string, args: Record<string, string>): string {
  return name === 'get_order' ? getOrder(args.order_id!) : trackPackage(args.tracking_number!);
}

const OPENAI_TOOLS = [
  {
    type: 'function' as const,
    function: { name: 'get_order', description: 'An order by id.', parameters: ORDER_SCHEMA },
  },
  {
    type: 'function' as const,
    function: { name: 'track_package', description: 'A parcel by tracking number.', parameters: TRACKING_SCHEMA },
  },
];

/**
 * OpenAI SDK, chat completions: the request's messages, each answer's `choices[0].message` and the tool messages, one
 * conversation per line.
 */
export async function openAiChatExport(): Promise<string> {
  const completion = (message: Record<string, unknown>, finish: string) => ({
    id: 'chatcmpl-1',
    object: 'chat.completion',
    created: 1_780_000_000,
    model: 'gpt-4o-2024-08-06',
    choices: [
      {
        index: 0,
        message: { role: 'assistant', refusal: null, annotations: [], ...message },
        logprobs: null,
        finish_reason: finish,
      },
    ],
    usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 },
  });
  const bodies = [
    ...CALLS.map(([name, args, id]) =>
      completion(
        { content: null, tool_calls: [{ id, type: 'function', function: { name, arguments: JSON.stringify(args) } }] },
        'tool_calls',
      ),
    ),
    completion({ content: CONVERSATION.answer }, 'stop'),
  ];
  const client = new OpenAI({ apiKey: 'test', fetch: scriptedFetch(bodies), maxRetries: 0 });
  const messages: ChatCompletionMessageParam[] = [
    { role: 'system', content: CONVERSATION.system },
    { role: 'user', content: CONVERSATION.question },
  ];
  for (;;) {
    const answer = await client.chat.completions.create({ model: 'gpt-4o', messages, tools: OPENAI_TOOLS });
    const message = answer.choices[0]!.message;
    messages.push(message);
    if (!message.tool_calls?.length) break;
    for (const call of message.tool_calls) {
      if (call.type !== 'function') continue;
      messages.push({
        role: 'tool',
        tool_call_id: call.id,
        content: runTool(call.function.name, JSON.parse(call.function.arguments) as Record<string, string>),
      });
    }
  }
  return `${JSON.stringify({ messages })}\n`;
}

/**
 * OpenAI SDK, Responses: the input items, each response's `output` items and the `function_call_output`s, as one array
 * per line.
 */
export async function openAiResponsesExport(): Promise<string> {
  const response = (output: unknown[]) => ({
    id: 'resp_1',
    object: 'response',
    created_at: 1_780_000_000,
    status: 'completed',
    model: 'gpt-4o-2024-08-06',
    output,
    parallel_tool_calls: true,
    tool_choice: 'auto',
    tools: [],
    usage: {
      input_tokens: 10,
      output_tokens: 5,
      total_tokens: 15,
      input_tokens_details: { cached_tokens: 0 },
      output_tokens_details: { reasoning_tokens: 0 },
    },
  });
  const bodies = [
    ...CALLS.map(([name, args, id], index) =>
      response([
        { type: 'reasoning', id: `rs_${index}`, summary: [] },
        {
          type: 'function_call',
          id: `fc_${index}`,
          call_id: id,
          name,
          arguments: JSON.stringify(args),
          status: 'completed',
        },
      ]),
    ),
    response([
      {
        type: 'message',
        id: 'msg_1',
        role: 'assistant',
        status: 'completed',
        content: [{ type: 'output_text', text: CONVERSATION.answer, annotations: [] }],
      },
    ]),
  ];
  const client = new OpenAI({ apiKey: 'test', fetch: scriptedFetch(bodies), maxRetries: 0 });
  const input: ResponseInputItem[] = [
    { type: 'message', role: 'developer', content: CONVERSATION.system },
    { type: 'message', role: 'user', content: CONVERSATION.question },
  ];
  const tools = OPENAI_TOOLS.map(({ function: fn }) => ({
    type: 'function' as const,
    name: fn.name,
    description: fn.description,
    parameters: { ...fn.parameters },
    strict: true,
  }));
  for (;;) {
    const answer = await client.responses.create({ model: 'gpt-4o', input, tools });
    input.push(...(answer.output as ResponseInputItem[]));
    const calls = answer.output.filter((item) => item.type === 'function_call');
    if (calls.length === 0) break;
    for (const call of calls)
      input.push({
        type: 'function_call_output',
        call_id: call.call_id,
        output: runTool(call.name, JSON.parse(call.arguments) as Record<string, string>),
      });
  }
  return `${JSON.stringify(input)}\n`;
}

/**
 * Anthropic SDK: a Messages request body (`system`, `messages`), each answer's `content` sent back as the assistant
 * turn.
 */
export async function anthropicExport(): Promise<string> {
  const message = (content: unknown[], stop: string) => ({
    id: 'msg_01',
    type: 'message',
    role: 'assistant',
    model: 'claude-sonnet-4-6',
    content,
    stop_reason: stop,
    stop_sequence: null,
    usage: { input_tokens: 10, output_tokens: 5, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 },
  });
  const bodies = [
    ...CALLS.map(([name, input, id]) =>
      message([{ type: 'tool_use', id: id.replace('call_', 'toolu_'), name, input }], 'tool_use'),
    ),
    message([{ type: 'text', text: CONVERSATION.answer, citations: null }], 'end_turn'),
  ];
  const client = new Anthropic({ apiKey: 'test', fetch: scriptedFetch(bodies), maxRetries: 0 });
  const messages: MessageParam[] = [{ role: 'user', content: CONVERSATION.question }];
  const tools = OPENAI_TOOLS.map(({ function: fn }) => ({
    name: fn.name,
    description: fn.description,
    input_schema: { ...fn.parameters },
  }));
  for (;;) {
    const answer = await client.messages.create({
      model: 'claude-sonnet-4-6',
      max_tokens: 1024,
      system: CONVERSATION.system,
      messages,
      tools,
    });
    messages.push({ role: 'assistant', content: answer.content });
    const uses = answer.content.filter((block) => block.type === 'tool_use');
    if (uses.length === 0) break;
    messages.push({
      role: 'user',
      content: uses.map((use) => ({
        type: 'tool_result' as const,
        tool_use_id: use.id,
        content: runTool(use.name, use.input as Record<string, string>),
      })),
    });
  }
  return JSON.stringify({ system: CONVERSATION.system, messages }, null, 2);
}

/** OpenAI Agents SDK: `result.history` of a run with tools, under the agent's instructions as `system`. */
export async function openAiAgentsExport(): Promise<string> {
  setTracingDisabled(true);
  const outputs: AgentOutputItem[][] = [
    ...CALLS.map(([name, args, id]): AgentOutputItem[] => [
      { type: 'function_call', callId: id, name, arguments: JSON.stringify(args), status: 'completed' },
    ]),
    [
      {
        type: 'message',
        role: 'assistant',
        status: 'completed',
        content: [{ type: 'output_text', text: CONVERSATION.answer }],
      },
    ],
  ];
  const model: Model = {
    async getResponse(): Promise<ModelResponse> {
      return { usage: new Usage(), output: outputs.shift() ?? [] };
    },
    // eslint-disable-next-line require-yield
    async *getStreamedResponse(): AsyncIterable<never> {
      throw new Error('the scripted model answers getResponse only');
    },
  };
  const tools = [
    agentsTool({
      name: 'get_order',
      description: 'An order by id.',
      parameters: { ...ORDER_SCHEMA },
      strict: true,
      execute: async (input) => getOrder((input as { order_id: string }).order_id),
    }),
    agentsTool({
      name: 'track_package',
      description: 'A parcel by tracking number.',
      parameters: { ...TRACKING_SCHEMA },
      strict: true,
      execute: async (input) => trackPackage((input as { tracking_number: string }).tracking_number),
    }),
  ];
  const agent = new Agent({ name: 'shop', instructions: CONVERSATION.system, model, tools });
  const result = await run(agent, CONVERSATION.question);
  return `${JSON.stringify({ system: CONVERSATION.system, messages: result.history })}\n`;
}
