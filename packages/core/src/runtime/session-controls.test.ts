import type { ChatMessage } from '../contracts/chat-message';
import type { IContextManager } from '../contracts/context-manager';
import type { LLMPayload } from '../contracts/llm-payload';
import type { ReductionPreview, UndoResult } from '../contracts/reduction-epoch';
import { CapabilityUnsupportedError } from '../errors/capability-unsupported-error';
import type { StrategyFactory } from '../plugins/strategy-plugin';
import { createContextRuntime } from './create-context-runtime';

const payload = (messages: ChatMessage[]): LLMPayload => ({ messages, tools: [], stats: {} }) as unknown as LLMPayload;

const plain: StrategyFactory = () => ({
  async composePayload(systemPrompt, history) {
    return payload([{ role: 'system', content: systemPrompt }, ...history]);
  },
  async onTurnComplete() {},
});

/** A strategy with an undo that must wait for the turns reported before it. */
const undoing: StrategyFactory = () => {
  const calls: string[] = [];
  const strategy: IContextManager & {
    calls: string[];
    epochs(): Promise<never[]>;
    preview(): Promise<ReductionPreview>;
    undo(id: string): Promise<UndoResult>;
  } = {
    calls,
    async composePayload(systemPrompt, history) {
      return payload([{ role: 'system', content: systemPrompt }, ...history]);
    },
    async onTurnComplete() {
      await new Promise((resolve) => setTimeout(resolve, 20));
      calls.push('turn');
    },
    async epochs() {
      return [];
    },
    async preview() {
      return { dropped: [], folded: [], compacted: [], trimmed: [], payloadTokens: 7, notes: ['nothing to do'] };
    },
    async undo(id) {
      calls.push(`undo ${id}`);
      return { undone: { id, kind: 'fold', at: 0, turn: 0, description: 'x' }, alsoUndone: [] };
    },
  };
  return strategy;
};

async function runtimeWith(factory: StrategyFactory) {
  const runtime = await createContextRuntime({ discoverInstalled: false });
  runtime.registerStrategy(
    { id: 'test-strategy', name: 'Test', version: '1.0.0', configSchema: { type: 'object' } },
    factory,
  );
  return runtime.loadAgent({ id: 'agent', contextStrategy: { type: 'plugin', pluginId: 'test-strategy' } });
}

describe('session controls', () => {
  it('names its session and lists no epochs when the strategy records none', async () => {
    const agent = await runtimeWith(plain);
    const session = agent.forSession('chat-1');
    expect(session.sessionId).toBe('chat-1');
    expect(await session.epochs()).toEqual([]);
  });

  it('refuses preview and undo with a typed error when the strategy offers neither', async () => {
    const agent = await runtimeWith(plain);
    const session = agent.forSession('chat-1');
    await expect(session.preview('sys', [{ role: 'user', content: 'hi' }], [])).rejects.toBeInstanceOf(
      CapabilityUnsupportedError,
    );
    await expect(session.undo('e1')).rejects.toMatchObject({
      code: 'CTXKIT_CAPABILITY_UNSUPPORTED',
      message: expect.stringContaining('undo()'),
    });
  });

  it('passes preview through and runs an undo after the turns reported before it', async () => {
    const agent = await runtimeWith(undoing);
    const session = agent.forSession('chat-1');
    expect((await session.preview('sys', [{ role: 'user', content: 'hi' }], [])).notes).toEqual(['nothing to do']);
    const turn = session.onTurnComplete([{ role: 'user', content: 'hi' }]);
    const undone = await session.undo('e3');
    await turn;
    expect(undone.undone.id).toBe('e3');
    expect((session as unknown as { strategy: { calls: string[] } }).strategy.calls).toEqual(['turn', 'undo e3']);
  });

  it('wraps the default session once: its manager is the container-facing one and keeps its capabilities', async () => {
    const agent = await runtimeWith(undoing);
    expect(agent.contextManager).toBe(agent.forSession('default'));
  });
});
