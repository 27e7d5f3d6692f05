import 'reflect-metadata';

import {
  type ContextRuntime,
  createContextRuntime,
  createTokenCounter,
  type ILLMClient,
  type LLMCompletion,
  type LLMCompletionRequest,
  MemoryContextStore,
} from '@ctxkit/core';
import { loadConversations } from '@ctxkit/core/testing';
import { createAgent } from '@ctxkit/kernel';

/**
 * The kernel learns the provider's token counts (plugin.json → loader → DI → kernel): a provider
 * that counts 25% more than ctxkit's tokenizer plus its own chat template reports its input tokens
 * after every call; the estimate each payload is held to converges on the provider's count, the
 * correction is kept in the agent's store and the next process starts from it.
 */

const counter = createTokenCounter({ model: 'gpt-4o' });

/** A provider whose tokenizer counts 1.25× ctxkit's and adds 6 tokens of template per message. */
class CountingProvider implements ILLMClient {
  readonly name = 'counting-provider';
  readonly defaultModel = 'gpt-4o';
  readonly offline = false;
  readonly reported: number[] = [];
  readonly cacheKeys: Array<string | undefined> = [];

  async complete(request: LLMCompletionRequest): Promise<LLMCompletion> {
    this.cacheKeys.push(request.cacheKey);
    const input = Math.round(counter.countMessages(request.messages) * 1.25) + 6 * request.messages.length;
    this.reported.push(input);
    const message = { role: 'assistant' as const, content: 'Noted.' };
    return {
      message,
      text: 'Noted.',
      model: request.model ?? this.defaultModel,
      usage: {
        input_tokens: input,
        output_tokens: 2,
        cache_creation_tokens: 0,
        cache_read_tokens: 0,
        total_tokens: input + 2,
      },
    };
  }
}

const userTurns = loadConversations('tau-bench-airline')[0]!
  .history.filter((message) => message.role === 'user')
  .map((message) => String(message.content));

describe('token counts calibrated to the provider (kernel)', () => {
  let runtime: ContextRuntime;
  beforeEach(async () => {
    runtime = await createContextRuntime();
  });
  afterEach(async () => {
    await runtime.dispose();
  });

  const manifest = {
    id: 'calibrated-agent',
    model: 'gpt-4o',
    contextStrategy: {
      type: 'plugin' as const,
      pluginId: 'std-sliding-window-strategy',
      config: { maxContextTokens: 8000 },
    },
  };

  it(
    'holds each payload to an estimate that converges on the provider count, and keeps the correction in the ' +
      'store',
    async () => {
      const store = new MemoryContextStore();
      const llm = new CountingProvider();
      const agent = createAgent(await runtime.loadAgent(manifest), { llm, store });
      const reports = [];
      for (const turn of userTurns.slice(0, 8)) reports.push(...(await agent.run(turn)).budget.tokenCalibration);
      expect(reports).toHaveLength(8);
      expect(Math.abs(reports[0]!.relativeError)).toBeGreaterThan(0.1); // uncalibrated: ctxkit counts ~25% less
      for (const report of reports.slice(3)) expect(Math.abs(report.relativeError)).toBeLessThan(0.02);
      expect(reports.at(-1)!.correction).toBeGreaterThan(1.15);
      // every request names its conversation for the provider's prompt cache
      expect(new Set(llm.cacheKeys)).toEqual(new Set(['calibrated-agent:default']));
      // a new process (a new agent on the same store) starts from what was learned
      const again = createAgent(await runtime.loadAgent({ ...manifest }), { llm: new CountingProvider(), store });
      const [first] = (await again.run(userTurns[0]!)).budget.tokenCalibration;
      expect(Math.abs(first!.relativeError)).toBeLessThan(0.05);
      expect(first!.estimatedTokens).toBeGreaterThan(first!.rawTokens);
    },
  );

  it(
    'emits each usage-level crossing once, from the kernel, while the strategy counts less than the ' + 'provider',
    async () => {
      const config = { maxContextTokens: 4000, reserveOutputTokens: 128 };
      const handle = await runtime.loadAgent({
        ...manifest,
        id: 'levels-agent',
        contextStrategy: { ...manifest.contextStrategy, config },
      });
      const agent = createAgent(handle, { llm: new CountingProvider() });
      const levels: Array<{ from: string; to: string; used: number }> = [];
      handle.events.on('usage-level-change', ({ from, to, used }) => levels.push({ from, to, used }));
      const turn =
        'Please also check the connecting flight, the seat map and the fare rules for every passenger. '.repeat(8);
      // Until the strategy's own count (a quarter under the provider's) passes 60% too.
      let strategyLevel = 'ok';
      for (let index = 0; index < 40 && strategyLevel === 'ok'; index++)
        strategyLevel = (await agent.run(turn)).payloads.at(-1)!.usageLevel;
      expect(strategyLevel).toBe('warn');
      // One emitter, the kernel, by its calibrated count: a chain of crossings from ok, none of them twice.
      expect(levels[0]).toMatchObject({ from: 'ok', to: 'warn' });
      expect(levels[0]!.used).toBeGreaterThanOrEqual(0.6 * config.maxContextTokens);
      levels.slice(1).forEach((change, index) => expect(change.from).toBe(levels[index]!.to));
    },
  );

  it('learns nothing from an offline client or when turned off', async () => {
    const offline = Object.assign(new CountingProvider(), { offline: true });
    const agent = createAgent(await runtime.loadAgent(manifest), { llm: offline });
    expect((await agent.run(userTurns[0]!)).budget.tokenCalibration).toEqual([]);
    const off = createAgent(await runtime.loadAgent({ ...manifest, id: 'uncalibrated-agent' }), {
      llm: new CountingProvider(),
      calibrateTokenCounts: false,
    });
    expect((await off.run(userTurns[0]!)).budget.tokenCalibration).toEqual([]);
  });
});
