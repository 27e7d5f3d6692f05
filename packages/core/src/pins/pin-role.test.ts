import { computeBudget } from '../budget/compute-budget';
import { PayloadComposer } from '../composer/payload-composer';
import type { ChatMessage } from '../contracts/chat-message';
import { findPayloadProblems } from '../messages/find-payload-problems';
import type { StrategyFactory } from '../plugins/strategy-plugin';
import { createContextRuntime, DEFAULT_AGENT_MODEL } from '../runtime/create-context-runtime';
import { createTokenCounter } from '../token-counting/create-token-counter';
import { contentText } from '../token-counting/message-text';
import { pinMessageText } from './pin-block';

const SYSTEM = 'You are a careful coding agent.';
const counter = createTokenCounter({ model: DEFAULT_AGENT_MODEL });
const RULE = 'Never delete files.';

/** A window strategy on the shared composer: the newest history that fits its budget. */
const windowStrategy: StrategyFactory<{ maxContextTokens: number }> = (config, context) => {
  const budget = computeBudget({
    contextWindow: config.maxContextTokens,
    maxContextTokens: config.maxContextTokens,
    reserveOutputTokens: 0,
  });
  const composer = new PayloadComposer({
    owner: {
      agentId: context.agentId,
      sessionId: context.sessionId,
      strategyId: context.strategyId,
      events: context.events,
    },
    model: context.model,
    counter: context.counter,
    budget: () => budget,
  });
  return {
    async composePayload(systemPrompt, history, tools, ragContext) {
      return composer.compose({ systemPrompt, history, tools, ragContext, turn: 0 }).payload;
    },
    async onTurnComplete() {},
  };
};

/** A long conversation: the window cannot hold it, so the payload is filled to its budget. */
const history: ChatMessage[] = Array.from({ length: 30 }, (_, index): ChatMessage[] => [
  { role: 'user', content: `Step ${index}: ${'look at the parser and the tests again '.repeat(6)}` },
  { role: 'assistant', content: `Done ${index}: ${'the parser reads the tokens one by one '.repeat(6)}` },
]).flat();

async function sessionWith(manifest: Record<string, unknown> = {}) {
  const runtime = await createContextRuntime({ discoverInstalled: false });
  runtime.registerStrategy(
    { id: 'window-strategy', configSchema: { type: 'object' } },
    windowStrategy as StrategyFactory,
  );
  const agent = await runtime.loadAgent({
    id: 'agent',
    contextStrategy: { type: 'plugin', pluginId: 'window-strategy', config: { maxContextTokens: 2000 } },
    ...manifest,
  });
  const session = agent.forSession('s1');
  await session.pin(0, { label: 'task' });
  await session.pin(RULE, { label: 'rule' });
  return session;
}

describe('where the pinned block is sent (pinRole)', () => {
  it(
    'sends the pins in their own framed user message after the system prompt by default, within the budget the ' +
      'strategy kept',
    async () => {
      const session = await sessionWith();
      const payload = await session.composePayload(SYSTEM, history, []);
      const block = pinMessageText(
        `<pinned>\n[pin p1 · task]\n${contentText(history[0]!.content)}\n\n[pin p2 · rule]\n${RULE}\n</pinned>`,
      );
      expect(payload.messages.filter((message) => message.role === 'system')).toEqual([
        { role: 'system', content: SYSTEM },
      ]);
      expect(payload.messages[1]).toEqual({ role: 'user', content: block });
      expect(findPayloadProblems(payload.messages)).toEqual([]);
      // The stats count what is sent, and it fits the budget the strategy composed within.
      const { stats } = payload;
      expect(stats.output_tokens).toBe(
        stats.sections.system +
          stats.sections.tools +
          stats.sections.dynamic +
          stats.sections.memory +
          stats.sections.history,
      );
      expect(stats.budget.used).toBe(stats.output_tokens);
      expect(counter.countMessages(payload.messages)).toBe(stats.output_tokens);
      expect(stats.output_tokens).toBeLessThanOrEqual(stats.budget.available);
      expect(stats.messages.output).toBe(payload.messages.length);
      expect(stats.reductions.some((record) => record.action === 'dropped')).toBe(true);
    },
  );

  it(
    'puts the block back after the system prompt, in the system message, with pinRole "system", and refuses a role ' +
      'it does not know',
    async () => {
      const session = await sessionWith({ pinRole: 'system' });
      const payload = await session.composePayload(SYSTEM, history, []);
      expect(payload.messages[0]).toEqual({
        role: 'system',
        content:
          `${SYSTEM}\n\n<pinned>\n[pin p1 · task]\n${contentText(history[0]!.content)}\n\n[pin p2 · ` +
          `rule]\n${RULE}\n</pinned>`,
      });
      expect(payload.messages[1]!.role).not.toBe('system');
      await expect(sessionWith({ pinRole: 'developer' })).rejects.toMatchObject({ code: 'CTXKIT_MANIFEST_INVALID' });
    },
  );
});
