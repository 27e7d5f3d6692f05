import type { ChatMessage } from '@ctxkit/core';
import { createConformanceContext } from '@ctxkit/core/testing';

import { createStrategy } from './index';

function conversation(turns: number): ChatMessage[] {
  const history: ChatMessage[] = [
    { role: 'user', content: '📌 My booking code is ZX81Q7. Do not lose it.' },
    { role: 'assistant', content: 'Noted.' },
  ];
  for (let turn = 1; turn < turns; turn++) {
    history.push({
      role: 'user',
      content: `Question ${turn}: ${'tell me more about the weather in Lisbon and Porto '.repeat(6)}`,
    });
    history.push({
      role: 'assistant',
      content: `Answer ${turn}: ${'it is sunny with a light breeze along the coast '.repeat(6)}`,
    });
  }
  return history;
}

describe('PinnedMessagesStrategy', () => {
  describe('#composePayload', () => {
    it('keeps an old pinned message in a block after the system prompt once the window has dropped it', async () => {
      const { context, events } = createConformanceContext('unit', undefined, undefined);
      const strategy = await createStrategy({ maxContextTokens: 2048 }, context);
      const history = conversation(30);
      const payload = await strategy.composePayload('You are a travel agent.', history, []);
      expect(payload.messages[0]).toEqual({ role: 'system', content: 'You are a travel agent.' });
      expect(payload.messages[1]!.role).toBe('system');
      expect(payload.messages[1]!.content).toContain('<pinned_messages>');
      expect(payload.messages[1]!.content).toContain('[user, message 0] 📌 My booking code is ZX81Q7');
      expect(payload.messages).not.toContain(history[0]);
      expect(payload.messages[payload.messages.length - 1]).toBe(history[history.length - 1]);
      expect(payload.stats.sections.memory).toBeGreaterThan(0);
      expect(payload.stats.dropped).toBeGreaterThan(0);
      expect(payload.stats.extra).toMatchObject({ pinnedIndexes: [0], pinnedMessages: 1 });
      expect(events.some((event) => event.name === 'history-trim')).toBe(true);
    });

    it('sends no block while the pinned message is still in the recent window', async () => {
      const { context } = createConformanceContext('unit', undefined, undefined);
      const strategy = await createStrategy({ maxContextTokens: 8192 }, context);
      const history = conversation(3);
      const payload = await strategy.composePayload('You are a travel agent.', history, []);
      expect(payload.messages.slice(1)).toEqual(history);
      expect(payload.stats.sections.memory).toBe(0);
    });

    it('rejects an unknown role with a typed error', async () => {
      const { context } = createConformanceContext('unit', undefined, undefined);
      const strategy = await createStrategy({ maxContextTokens: 2048 }, context);
      await expect(
        strategy.composePayload('s', [{ role: 'function', content: 'x' } as unknown as ChatMessage], []),
      ).rejects.toMatchObject({ code: 'CTXKIT_HISTORY_INVALID' });
    });
  });
});
