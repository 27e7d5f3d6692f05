import type { ChatMessage, LLMPayload, ToolMessage } from '@ctxkit/core';
import { seededRandom } from '@ctxkit/core/testing/generators';

import { exchange, output, strategyOn } from './test-support';
import type { ToolOutputCacheStrategyConfig } from './tool-output-cache-strategy-config';

const SYSTEM = 'You are a coding agent.';

/**
 * A coding history of `units` steps: user requests, tool exchanges of varied sizes (some over `maxMessageBytes`, some
 * of one long line), answers.
 */
function codingHistory(units: number, random: () => number, label: string): ChatMessage[] {
  const history: ChatMessage[] = [];
  for (let unit = 0; unit < units; unit++) history.push(...step(random, `${label}${unit}`));
  history.push({ role: 'user', content: 'What is the status?' });
  return history;
}

function step(random: () => number, id: string): ChatMessage[] {
  const kind = random();
  if (kind < 0.2) return [{ role: 'user', content: `Please check ${id}.` }];
  if (kind < 0.3) return [{ role: 'assistant', content: `Done with ${id}.` }];
  const size = random();
  const text =
    size < 0.05 ? 'x'.repeat(3000) : size < 0.1 ? output(id, 900) : output(id, 2 + Math.floor(random() * 60));
  return exchange(id, text, random() < 0.5 ? 'read_file' : 'execute_bash');
}

/** What a payload sends: its messages and tools. */
function sent(payload: LLMPayload): string {
  return JSON.stringify({ messages: payload.messages, tools: payload.tools });
}

describe('a session composing turn after turn', () => {
  afterEach(() => jest.restoreAllMocks());

  // Each reduction is made as soon as it is due: what a payload sends then depends on the history
  // alone. (With a minimum reclaim it also depends on the payloads before; tested on its own.)
  const configs: Array<[string, ToolOutputCacheStrategyConfig]> = [
    ['under pressure', { maxContextTokens: 12_000, minReclaimTokens: 0, compaction: { enabled: false } }],
    [
      'more history than fits with every older output replaced',
      { maxContextTokens: 5_000, minReclaimTokens: 0, compaction: { enabled: false } },
    ],
    [
      'a tool output budget that trims',
      {
        maxContextTokens: 60_000,
        minReclaimTokens: 0,
        toolOutputCache: { contextBudgetTokens: 3000 },
        compaction: { enabled: false },
      },
    ],
    [
      'micro-compact always',
      {
        maxContextTokens: 20_000,
        minReclaimTokens: 0,
        microCompact: { when: 'always', keepRecent: 2 },
        compaction: { enabled: false },
      },
    ],
    ['automatic compaction without a model', { maxContextTokens: 16_000, minReclaimTokens: 0 }],
  ];

  it.each(configs)(
    'sends, with %s, what a new instance sends for the same history, previews and repeated calls in between',
    async (_name, config) => {
      const random = seededRandom(7);
      let history = codingHistory(160, random, 'h');
      // Dropping only what must go (cutBackRatio 1): a cut back holds each instance's own window start.
      const session = strategyOn({ cutBackRatio: 1, ...config });
      for (let turn = 0; turn < 24; turn++) {
        // Now and then a preview of a longer history first, or the same history composed twice: neither changes what is
        // sent.
        const extra = random();
        if (extra < 0.2)
          await session.strategy.preview(SYSTEM, [...history, { role: 'user', content: 'Preview only.' }], []);
        if (extra > 0.85) await session.strategy.composePayload(SYSTEM, history, []);
        const payload = await session.strategy.composePayload(SYSTEM, history, []);
        const fresh = strategyOn({ cutBackRatio: 1, ...config });
        expect(sent(payload)).toBe(sent(await fresh.strategy.composePayload(SYSTEM, history, [])));
        // Every ref the payload names expands at once, before the writes that follow the payload.
        const ref = payload.messages.find(
          (message): message is ToolMessage => message.role === 'tool' && message.output_ref !== undefined,
        )?.output_ref;
        if (ref) expect(await session.strategy.cache.has(ref.id)).toBe(true);
        await session.strategy.whenIdle();
        // The next turn: a user message, a few steps, or a tool result that ends the turn's exchange.
        const grow = random();
        if (grow < 0.4) history = [...history, { role: 'user', content: `Turn ${turn}: go on.` }];
        else {
          const added: ChatMessage[] = [];
          const steps = 1 + Math.floor(random() * 3);
          for (let index = 0; index < steps; index++) added.push(...step(random, `t${turn}s${index}`));
          history = [...history, ...added];
          if (history[history.length - 1]!.role === 'assistant' && random() < 0.5)
            history.push({ role: 'user', content: 'And now?' });
        }
      }
    },
  );

  it(
    'expands a ref of the first payload before anything is written, and writes every output it named after ' +
      'returning it',
    async () => {
      const random = seededRandom(11);
      const history = codingHistory(200, random, 'f');
      const { strategy, context } = strategyOn({ maxContextTokens: 12_000, compaction: { enabled: false } });
      const putBlob = jest.spyOn(context.store, 'putBlob');
      const payload = await strategy.composePayload(SYSTEM, history, []);
      expect(putBlob).not.toHaveBeenCalled();
      const refs = payload.messages.flatMap((message) =>
        message.role === 'tool' && message.output_ref ? [message.output_ref.id] : [],
      );
      expect(refs.length).toBeGreaterThan(20);
      const expand = strategy.contributedTools().find((tool) => tool.definition.function.name === 'tool_output_cache')!;
      const answer = await expand.execute(
        { ref_id: refs[0] },
        { agentId: 'agent-1', sessionId: 'session-1', toolCallId: 'x' },
      );
      expect(String(answer)).toContain(`ref=${refs[0]}: lines 1-`);
      await strategy.whenIdle();
      const stored = await context.store.listBlobs({ agentId: 'agent-1', sessionId: 'session-1', kind: 'tool-output' });
      for (const ref of refs) expect(stored.some((key) => key.name === ref)).toBe(true);
    },
  );

  it('reports a write that fails after the payload and makes it when the ref is expanded', async () => {
    const random = seededRandom(5);
    const history = codingHistory(40, random, 'w');
    const { strategy, context, named } = strategyOn({ maxContextTokens: 6_000, compaction: { enabled: false } });
    const putBlob = context.store.putBlob.bind(context.store);
    let failing = true;
    jest
      .spyOn(context.store, 'putBlob')
      .mockImplementation((key, data) => (failing ? Promise.reject(new Error('store offline')) : putBlob(key, data)));
    const payload = await strategy.composePayload(SYSTEM, history, []);
    await strategy.whenIdle();
    const warnings = named('strategy-warning').map((event) => String(event.message));
    expect(warnings.length).toBeGreaterThan(0);
    expect(warnings[0]).toMatch(
      new RegExp(
        String.raw`^A tool output could not be written to the store \(store offline\); its ref to_[0-9a` +
          String.raw`-f]{32} is written again when it is expanded`,
      ),
    );
    failing = false;
    const shown = payload.messages.find(
      (message): message is ToolMessage => message.role === 'tool' && message.output_ref !== undefined,
    )!;
    const original = history.find(
      (message): message is ToolMessage => message.role === 'tool' && message.tool_call_id === shown.tool_call_id,
    )!;
    expect(await strategy.cache.readAll(shown.output_ref!.id)).toBe(original.content);
  });
});
