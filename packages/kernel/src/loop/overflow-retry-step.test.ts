import 'reflect-metadata';

import {
  type ChatMessage,
  ContextOverflowError,
  CtxkitEventBus,
  type CtxkitEventPayloads,
  ErrorCodes,
  IContextManager,
  IEventBus,
  ILLMClient,
} from '@ctxkit/core';
import { container as rootContainer } from 'tsyringe';

import { NaiveManager, sizedText, testCounter } from '../__fixtures__/budget-test-agent';
import {
  json,
  LoopbackProviderServer,
  type ReceivedRequest,
  type Responder,
} from '../__fixtures__/loopback-provider-server';
import { Agent } from '../agent';
import { IAgentOptions, IToolRegistry } from '../injection-tokens';
import { AnthropicClient } from '../llm/anthropic-client';
import { OpenAICompatibleClient } from '../llm/openai-compatible-client';
import { ToolRegistry } from '../tools/tool-registry';

/**
 * A provider refusing a request as too long for the model, in each provider's words, through the
 * real clients and a loopback server: the kernel cuts the payload to the budget the refusal implies
 * and retries once; a second refusal reaches the caller as a ContextOverflowError.
 */

const CONTEXT_WINDOW = 16_000;
const RESERVE = 1_000;

const openAIAnswer = json(200, {
  id: 'chatcmpl-1',
  object: 'chat.completion',
  model: 'gpt-4o',
  choices: [
    { index: 0, message: { role: 'assistant', content: 'Your bag allowance is two bags.' }, finish_reason: 'stop' },
  ],
  usage: { prompt_tokens: 900, completion_tokens: 8, total_tokens: 908 },
});
const anthropicAnswer = json(200, {
  id: 'msg_1',
  type: 'message',
  role: 'assistant',
  model: 'claude-sonnet-4',
  content: [{ type: 'text', text: 'Your bag allowance is two bags.' }],
  stop_reason: 'end_turn',
  usage: { input_tokens: 900, output_tokens: 8 },
});

interface Wording {
  provider: string;
  refusal: Responder;
  answer: Responder;
  client(url: string): ILLMClient;
  /** The provider's numbers, when its wording gives them. */
  limit?: number;
  actual?: number;
}

const openAI = (url: string) =>
  new OpenAICompatibleClient({
    baseURL: `${url}/v1`,
    apiKey: 'sk-test',
    model: 'gpt-4o',
    retry: { maxRetries: 0 },
    env: {},
  });

const WORDINGS: Wording[] = [
  {
    provider: 'OpenAI (context_length_exceeded)',
    refusal: json(400, {
      error: {
        message:
          "This model's maximum context length is 4096 tokens. However, your messages resulted in 5400 tokens. " +
          'Please reduce the length of the messages.',
        type: 'invalid_request_error',
        param: 'messages',
        code: 'context_length_exceeded',
      },
    }),
    answer: openAIAnswer,
    client: openAI,
    limit: 4096,
    actual: 5400,
  },
  {
    provider: 'Anthropic (prompt is too long)',
    refusal: json(400, {
      type: 'error',
      error: { type: 'invalid_request_error', message: 'prompt is too long: 5400 tokens > 4096 maximum' },
    }),
    answer: anthropicAnswer,
    client: (url) =>
      new AnthropicClient({
        baseURL: url,
        apiKey: 'sk-ant-test',
        model: 'claude-sonnet-4',
        retry: { maxRetries: 0 },
        env: {},
      }),
    limit: 4096,
    actual: 5400,
  },
  {
    provider: 'Gemini (input token count exceeds the maximum)',
    refusal: json(400, {
      error: {
        code: 400,
        message: 'The input token count (5400) exceeds the maximum number of tokens allowed (4096).',
        status: 'INVALID_ARGUMENT',
      },
    }),
    answer: openAIAnswer,
    client: openAI,
    limit: 4096,
    actual: 5400,
  },
  {
    provider: 'llama.cpp server (exceeds the available context size)',
    refusal: json(400, {
      error: {
        code: 400,
        message: 'the request exceeds the available context size, try increasing it',
        type: 'exceed_context_size_error',
      },
    }),
    answer: openAIAnswer,
    client: openAI,
  },
  {
    provider: 'Ollama (input length exceeds the context length)',
    refusal: json(400, { error: 'input length exceeds the context length' }),
    answer: openAIAnswer,
    client: openAI,
  },
];

/** Six earlier turns of about 750 tokens each, then the question: about 5,000 tokens, inside the strategy's budget. */
function longHistory(): ChatMessage[] {
  const history: ChatMessage[] = [];
  for (let turn = 1; turn <= 6; turn++) {
    history.push({ role: 'user', content: `Question ${turn}: ${sizedText(500)}` });
    history.push({ role: 'assistant', content: `Answer ${turn}: ${sizedText(250)}` });
  }
  history.push({ role: 'user', content: 'How many bags can I check?' });
  return history;
}

function buildAgent(llm: ILLMClient) {
  const manager = new NaiveManager(CONTEXT_WINDOW, RESERVE);
  const events = new CtxkitEventBus();
  const child = rootContainer.createChildContainer();
  child.register(IContextManager, { useValue: manager });
  child.register(ILLMClient, { useValue: llm });
  child.register(IEventBus, { useValue: events });
  child.register(IToolRegistry, { useValue: new ToolRegistry([]) });
  child.register(IAgentOptions, {
    useValue: {
      agentId: 'support',
      strategyId: 'naive',
      systemPrompt: 'You are an airline agent.',
      counter: testCounter,
    },
  });
  const warnings: Array<CtxkitEventPayloads['strategy-warning']> = [];
  const steps: Array<CtxkitEventPayloads['budget-escalation']> = [];
  events.on('strategy-warning', (event) => warnings.push(event));
  events.on('budget-escalation', (event) => steps.push(event));
  return { agent: child.resolve(Agent), manager, warnings, steps };
}

/** Everything a request carried (Anthropic sends the system prompt beside the messages). */
function sentText(request: ReceivedRequest): string {
  return JSON.stringify(request.body);
}

describe('callModelStep', () => {
  let server: LoopbackProviderServer;

  beforeEach(async () => {
    server = await LoopbackProviderServer.start();
  });
  afterEach(async () => server.close());

  describe.each(WORDINGS)('$provider', (wording) => {
    it(
      'retries once with the payload cut to the budget the refusal implies, and the answer comes ' + 'through',
      async () => {
        server.answer(wording.refusal, wording.answer);
        const { agent, warnings, steps } = buildAgent(wording.client(server.url));
        const history = longHistory();
        const result = await agent.run(history);

        expect(result.finalText).toBe('Your bag allowance is two bags.');
        expect(server.requests).toHaveLength(2);
        const [retry] = result.budget.overflowRetries;
        expect(result.budget.overflowRetries).toHaveLength(1);
        expect(retry).toMatchObject({
          call: 0,
          providerLimit: wording.limit,
          providerCount: wording.actual,
          recovered: true,
        });
        // Within budget: the retried payload fits the line the refusal implied, well under what was refused.
        const expectedLimit =
          wording.limit !== undefined
            ? Math.floor((wording.limit - RESERVE) * Math.min(1, retry!.sentTokens / wording.actual!))
            : Math.floor(retry!.sentTokens * 0.85);
        expect(retry!.retryLimit).toBe(expectedLimit);
        expect(retry!.retryTokens).toBeLessThanOrEqual(retry!.retryLimit);
        expect(result.budget.tokensPerCall).toEqual([retry!.sentTokens, retry!.retryTokens]);
        // The oldest turns went; the system prompt and the question stayed.
        const [refused, retried] = server.requests;
        expect(sentText(refused!)).toContain('Question 1:');
        expect(sentText(retried!)).not.toContain('Question 1:');
        expect(sentText(retried!)).toContain('You are an airline agent.');
        expect(sentText(retried!)).toContain('How many bags can I check?');
        expect(steps.map((step) => step.step)).toEqual(['drop-oldest-turns']);
        expect(warnings).toEqual([expect.objectContaining({ code: ErrorCodes.CONTEXT_OVERFLOW })]);
        // The history is the caller's, whole: only the payload was cut.
        expect(result.messages.slice(0, history.length)).toEqual(history);
      },
    );

    it('lets a second refusal through as a ContextOverflowError', async () => {
      server.answer(wording.refusal);
      const { agent } = buildAgent(wording.client(server.url));
      const error = (await agent.run(longHistory()).catch((caught: unknown) => caught)) as ContextOverflowError;
      expect(error).toBeInstanceOf(ContextOverflowError);
      expect(error).toMatchObject({
        code: ErrorCodes.CONTEXT_OVERFLOW,
        retried: true,
        limit: wording.limit,
        actual: wording.actual,
        status: 400,
      });
      expect(error.message).toMatch(/again after the payload was cut to fit/);
      expect(server.requests).toHaveLength(2);
    });
  });

  it("sends the budget's answer reservation as the output limit of both requests", async () => {
    server.answer(WORDINGS[0]!.refusal, openAIAnswer);
    const { agent } = buildAgent(openAI(server.url));
    await agent.run(longHistory());
    expect(server.requests.map((request) => (request.body as { max_tokens?: number }).max_tokens)).toEqual([
      RESERVE,
      RESERVE,
    ]);
  });

  it('does not retry other refusals', async () => {
    server.answer(
      json(400, {
        error: { message: 'The model `gpt-5o` does not exist', type: 'invalid_request_error', code: 'model_not_found' },
      }),
      openAIAnswer,
    );
    const { agent } = buildAgent(openAI(server.url));
    await expect(agent.run(longHistory())).rejects.toMatchObject({ code: ErrorCodes.LLM_REQUEST_FAILED, status: 400 });
    expect(server.requests).toHaveLength(1);
  });
});
