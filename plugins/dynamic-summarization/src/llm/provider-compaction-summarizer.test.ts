import {
  CtxkitEventBus,
  type ILLMClient,
  type LLMCompletion,
  type LLMCompletionRequest,
  MemoryContextStore,
  ModelRegistry,
  type ProviderCompactionKind,
  type StrategyContext,
} from '@ctxkit/core';
import { HeuristicTokenCounter } from '@ctxkit/core/strategy-kit';

import { createStrategy } from '../create-summarization-strategy';
import { reservationTurn } from '../test-support';

const usage = { input_tokens: 10, output_tokens: 10, cache_creation_tokens: 0, cache_read_tokens: 0, total_tokens: 20 };

/**
 * A client that compacts with a readable (Anthropic) or encrypted (OpenAI) item, and answers summary requests with
 * text.
 */
function client(
  kind: ProviderCompactionKind | undefined,
  compaction: string,
): ILLMClient & { requests: LLMCompletionRequest[] } {
  const requests: LLMCompletionRequest[] = [];
  return {
    name: 'recording',
    defaultModel: 'gpt-4o',
    offline: false,
    ...(kind ? { providerCompaction: kind } : {}),
    requests,
    async complete(request): Promise<LLMCompletion> {
      requests.push(request);
      if (request.providerCompaction) {
        const data =
          kind === 'anthropic'
            ? { type: 'compaction', content: compaction, signature: 's' }
            : { type: 'compaction', encrypted_content: 'gAAAA' };
        return {
          message: {
            role: 'assistant',
            content: null,
            reasoning: [{ provider: kind === 'anthropic' ? 'anthropic' : 'openai', data }],
          },
          text: '',
          usage,
          model: 'gpt-4o',
        };
      }
      const text = '<summary>Looked up RES1001 for user_1 on flight HAT101 (ctxkit).</summary>';
      return { message: { role: 'assistant', content: text }, text, usage, model: 'gpt-4o' };
    },
  };
}

function context(llm: ILLMClient): StrategyContext {
  const counter = new HeuristicTokenCounter('gpt-4o');
  return {
    agentId: 'airline',
    sessionId: 's-1',
    strategyId: 'std-summarization-strategy',
    model: 'gpt-4o',
    counter,
    counterFor: () => counter,
    models: new ModelRegistry(),
    store: new MemoryContextStore(),
    events: new CtxkitEventBus(),
    llm,
    now: () => Date.UTC(2026, 0, 1),
  };
}

async function fold(engine: 'ctxkit' | 'provider' | 'auto', llm: ILLMClient) {
  const strategy = createStrategy({ threshold: 1, batchTurns: 1, maxContextTokens: 8000, engine }, context(llm));
  const turns = [...reservationTurn(1), ...reservationTurn(2)];
  await strategy.composePayload('You are an airline agent.', turns, []);
  await strategy.onTurnComplete(turns);
  await strategy.whenIdle();
  const payload = await strategy.composePayload(
    'You are an airline agent.',
    [...turns, { role: 'user', content: 'Next.' }],
    [],
  );
  const state = await strategy.getSummaryState();
  await strategy.dispose();
  return { state, stats: payload.stats.extra!.summaryEngine };
}

describe('ProviderCompactionSummarizer', () => {
  const readable = 'Looked up reservation RES1001 for user_1: flight HAT101 (provider).';

  it(
    'writes the summary with a readable compaction under "provider" and "auto", from the turns as the last request ' +
      'sent them',
    async () => {
      for (const engine of ['provider', 'auto'] as const) {
        const llm = client('anthropic', readable);
        const { state, stats } = await fold(engine, llm);
        expect(state?.text).toBe(readable);
        expect(stats).toEqual({ engine, lastEngine: 'provider', providerFallback: null });
        const [request] = llm.requests;
        expect(request!.providerCompaction?.instructions).toContain('fold it in');
        expect(request!.messages[0]).toEqual({ role: 'system', content: 'You are an airline agent.' });
        expect(request!.messages.slice(1)).toEqual(reservationTurn(1));
        expect(request!.cacheKey).toBe('airline:s-1');
      }
    },
  );

  it(
    'uses the summary request under "ctxkit", with an encrypted compaction, or when the readable one misses an ' +
      'identifier',
    async () => {
      const cases = [
        ['ctxkit', client('anthropic', readable), null],
        ['auto', client('openai-responses', readable), null],
        ['provider', client('openai-responses', readable), 'CTXKIT_STRATEGY_ERROR'],
        ['provider', client('anthropic', 'Looked up a reservation.'), 'CTXKIT_LLM_RESPONSE_INVALID'],
      ] as const;
      for (const [engine, llm, code] of cases) {
        const { state, stats } = await fold(engine, llm);
        expect([engine, state?.text]).toEqual([engine, 'Looked up RES1001 for user_1 on flight HAT101 (ctxkit).']);
        expect(stats).toMatchObject({
          engine,
          lastEngine: 'ctxkit',
          providerFallback: code === null ? null : { code },
        });
      }
    },
  );

  it(
    'folds the previous summary in: sent as its own record when the last request did not send it right before the ' +
      'turns',
    async () => {
      const llm = client('anthropic', readable);
      const strategy = createStrategy(
        { threshold: 1, batchTurns: 1, maxContextTokens: 8000, engine: 'provider' },
        context(llm),
      );
      const two = [...reservationTurn(1), ...reservationTurn(2)];
      await strategy.composePayload('You are an airline agent.', two, []);
      await strategy.onTurnComplete(two);
      await strategy.whenIdle();
      // The next fold takes turn 2; the window still starts at turn 1 (everything fits), so the summary was not sent
      // before it.
      const three = [...two, ...reservationTurn(3)];
      await strategy.composePayload('You are an airline agent.', three, []);
      await strategy.onTurnComplete(three);
      await strategy.whenIdle();
      await strategy.dispose();
      const second = llm.requests[1]!;
      expect(second.providerCompaction).toBeDefined();
      expect(second.messages[0]).toEqual({ role: 'system', content: 'You are an airline agent.' });
      expect(second.messages[1]).toEqual({
        role: 'user',
        content: `<previous_summary>\n${readable}\n</previous_summary>`,
      });
      expect(second.messages.slice(2)).toEqual(reservationTurn(2));
    },
  );
});
