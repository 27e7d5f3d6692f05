import type {
  ChatMessage,
  ILLMClient,
  LLMCompletion,
  LLMCompletionRequest,
  ProviderCompactionKind,
} from '@ctxkit/core';
import { createConformanceContext } from '@ctxkit/core/testing';

import { exchange, output } from '../test-support';
import { createStrategy } from '../tool-output-cache-strategy';
import { resolveToolOutputCacheStrategyConfig } from '../tool-output-cache-strategy-config';
import { buildProviderCompactionRequest, providerCompactionInstructions } from './compact-messages';

const usage = (total: number) => ({
  input_tokens: total,
  output_tokens: 0,
  cache_creation_tokens: 0,
  cache_read_tokens: 0,
  total_tokens: total,
});
const block = {
  type: 'compaction',
  content: 'The agent read the build logs; the error is in src/main.c.',
  encrypted_content: null,
  signature: 'sig',
};
const summaryReply =
  '<retain>src/main.c</retain>\n<summary>The agent read the build logs and is fixing src/main.c.</summary>';

/**
 * A client that answers compaction requests with a compaction block and others with a text summary, recording each
 * request.
 */
function client(kind: ProviderCompactionKind | undefined): ILLMClient & { requests: LLMCompletionRequest[] } {
  const requests: LLMCompletionRequest[] = [];
  return {
    name: 'recording',
    defaultModel: 'claude-haiku-4-5',
    offline: false,
    ...(kind ? { providerCompaction: kind } : {}),
    requests,
    async complete(request): Promise<LLMCompletion> {
      requests.push(request);
      const message = request.providerCompaction
        ? { role: 'assistant' as const, content: null, reasoning: [{ provider: 'anthropic', data: block }] }
        : { role: 'assistant' as const, content: summaryReply };
      return { message, text: message.content ?? '', usage: usage(10), model: 'claude-haiku-4-5' };
    },
  };
}

const HISTORY: ChatMessage[] = [
  { role: 'user', content: 'Fix it.' },
  ...exchange('a', output('log', 40)),
  { role: 'user', content: 'Now test.' },
];
const TOOLS = [{ type: 'function' as const, function: { name: 'run', parameters: { type: 'object' } } }];

async function compactedStrategy(engine: 'ctxkit' | 'provider' | 'auto', llm: ILLMClient) {
  const { context } = createConformanceContext(
    'session-1',
    { agentId: 'agent-1', strategyId: 'std-tool-output-cache-strategy', llm },
    undefined,
  );
  const strategy = createStrategy(
    { model: 'claude-haiku-4-5', maxContextTokens: 8000, compaction: { engine } },
    context,
  );
  await strategy.composePayload('You fix builds.', HISTORY, TOOLS);
  const result = await strategy.checkCompaction('after-llm-call', HISTORY, usage(7000));
  return { strategy, messages: result.compacted ? result.messages : undefined };
}

async function compactWith(
  engine: 'ctxkit' | 'provider' | 'auto',
  llm: ILLMClient,
): Promise<ChatMessage[] | undefined> {
  const { strategy, messages } = await compactedStrategy(engine, llm);
  await strategy.dispose();
  return messages;
}

describe('provider compaction in the tool output cache', () => {
  it(
    'asks the provider under "provider" and "auto" when the client has one: the block opens the history, the kept ' +
      'turn follows',
    async () => {
      for (const engine of ['provider', 'auto'] as const) {
        const llm = client('anthropic');
        const messages = await compactWith(engine, llm);
        expect(llm.requests).toHaveLength(1);
        const [request] = llm.requests;
        expect(request!.providerCompaction).toEqual({});
        // The turns it replaces, after the system prompt, with the payload's tools, under the conversation's key.
        expect(request!.messages[0]).toEqual({ role: 'system', content: 'You fix builds.' });
        expect(request!.messages.some((message) => message.content === 'Now test.')).toBe(false);
        expect(request!.tools!.map((tool) => tool.function.name)).toContain('run');
        expect(request!.cacheKey).toBe('agent-1:session-1');
        expect(messages![0]).toEqual({
          role: 'assistant',
          content: null,
          reasoning: [{ provider: 'anthropic', data: block }],
        });
        expect(messages!.at(-1)).toEqual({ role: 'user', content: 'Now test.' });
      }
    },
  );

  it(
    'writes the summary with ctxkit under "ctxkit", and under "auto" or "provider" when the client has no provider ' +
      'compaction',
    async () => {
      for (const [engine, kind] of [
        ['ctxkit', 'anthropic'],
        ['auto', undefined],
        ['provider', undefined],
      ] as const) {
        const llm = client(kind);
        const messages = await compactWith(engine, llm);
        expect([engine, llm.requests.some((request) => request.providerCompaction !== undefined)]).toEqual([
          engine,
          false,
        ]);
        expect(
          messages!.some((message) => message.role === 'user' && String(message.content).includes('fixing src/main.c')),
        ).toBe(true);
      }
    },
  );

  it(
    'leaves the provider its own prompt unless directives or a focus ask for more, and strips a trailing ' +
      'unanswered tool call',
    () => {
      const config = resolveToolOutputCacheStrategyConfig({}).compaction;
      expect(providerCompactionInstructions(config)).toBeUndefined();
      const asked = providerCompactionInstructions(
        { ...config, summaryDirectives: ['Keep every ticket id.'] },
        'the failing test',
      );
      expect(asked).toContain('- Keep every ticket id.');
      expect(asked).toContain('- Focus on: the failing test');
      const request = buildProviderCompactionRequest(
        [
          { role: 'user', content: 'Run it.' },
          {
            role: 'assistant',
            content: null,
            tool_calls: [{ id: 'c', type: 'function', function: { name: 'run', arguments: '{}' } }],
          },
        ],
        { callerModel: 'm', config, tools: [] },
      );
      expect(request.messages).toEqual([{ role: 'user', content: 'Run it.' }]);
      expect(request.tools).toBeNull();
    },
  );

  it(
    'sends the block first whether the caller adopts the compacted history or keeps passing its whole ' + 'history',
    async () => {
      const { strategy, messages } = await compactedStrategy('provider', client('anthropic'));
      const next: ChatMessage = { role: 'assistant', content: 'Tests pass.' };
      const adopted = await strategy.composePayload('You fix builds.', [...messages!, next], TOOLS);
      const full = await strategy.composePayload('You fix builds.', [...HISTORY, next], TOOLS);
      for (const payload of [adopted, full]) {
        expect(payload.messages[0]).toEqual({ role: 'system', content: 'You fix builds.' });
        expect(payload.messages[1]).toEqual({
          role: 'assistant',
          content: null,
          reasoning: [{ provider: 'anthropic', data: block }],
        });
        expect(payload.messages.slice(2)).toEqual([{ role: 'user', content: 'Now test.' }, next]);
        expect(payload.messages.some((message) => message.content === 'Fix it.')).toBe(false);
      }
      await strategy.dispose();
    },
  );
});
