import type { ChatMessage } from '@ctxkit/core';
import { loadConversations } from '@ctxkit/core/testing';

import { makeToolCallIdsUnique } from './unique-tool-call-ids';

const call = (
  id: string,
  name = 'lookup',
): NonNullable<Extract<ChatMessage, { role: 'assistant' }>['tool_calls']>[number] => ({
  id,
  type: 'function',
  function: { name, arguments: '{}' },
});

describe('makeToolCallIdsUnique', () => {
  describe('#makeToolCallIdsUnique', () => {
    it('keeps unique safe ids and returns the same message objects', () => {
      const history: ChatMessage[] = [
        { role: 'user', content: 'hi' },
        { role: 'assistant', content: null, tool_calls: [call('a')] },
        { role: 'tool', tool_call_id: 'a', content: 'ok' },
      ];
      const { messages, renamed } = makeToolCallIdsUnique(history);
      expect(renamed).toEqual([]);
      messages.forEach((message, index) => expect(message).toBe(history[index]));
    });

    it('renames a reused id on the call and its result alike', () => {
      const history: ChatMessage[] = [
        { role: 'user', content: 'hi' },
        { role: 'assistant', content: null, tool_calls: [call('x')] },
        { role: 'tool', tool_call_id: 'x', content: 'first' },
        { role: 'assistant', content: null, tool_calls: [call('x')] },
        { role: 'tool', tool_call_id: 'x', content: 'second' },
      ];
      const frozen = structuredClone(history);
      const { messages, renamed } = makeToolCallIdsUnique(history);
      expect(renamed).toEqual([{ messageIndex: 3, from: 'x', to: 'x_2' }]);
      expect((messages[3] as { tool_calls: Array<{ id: string }> }).tool_calls[0]!.id).toBe('x_2');
      expect((messages[4] as { tool_call_id: string }).tool_call_id).toBe('x_2');
      expect((messages[2] as { tool_call_id: string }).tool_call_id).toBe('x');
      expect(history).toEqual(frozen);
    });

    it('pairs results by position when one message repeats an id', () => {
      const history: ChatMessage[] = [
        { role: 'user', content: 'hi' },
        { role: 'assistant', content: null, tool_calls: [call('d', 'one'), call('d', 'two')] },
        { role: 'tool', tool_call_id: 'd', content: 'r1' },
        { role: 'tool', tool_call_id: 'd', content: 'r2' },
      ];
      const { messages } = makeToolCallIdsUnique(history);
      const ids = (messages[1] as { tool_calls: Array<{ id: string }> }).tool_calls.map((c) => c.id);
      expect(ids).toEqual(['d', 'd_2']);
      expect([
        (messages[2] as { tool_call_id: string }).tool_call_id,
        (messages[3] as { tool_call_id: string }).tool_call_id,
      ]).toEqual(['d', 'd_2']);
    });

    it('replaces characters a provider rejects in ids', () => {
      const history: ChatMessage[] = [
        { role: 'user', content: 'hi' },
        { role: 'assistant', content: null, tool_calls: [call('call:1/a b')] },
        { role: 'tool', tool_call_id: 'call:1/a b', content: 'ok' },
      ];
      const { messages } = makeToolCallIdsUnique(history);
      expect((messages[2] as { tool_call_id: string }).tool_call_id).toBe('call_1_a_b');
    });

    it('makes every id unique in every tau-bench conversation', () => {
      let renamedTotal = 0;
      for (const record of loadConversations('tau-bench-airline')) {
        const { messages, renamed } = makeToolCallIdsUnique(record.history);
        renamedTotal += renamed.length;
        const ids = messages.flatMap((m) => (m.role === 'assistant' ? (m.tool_calls ?? []).map((c) => c.id) : []));
        expect(new Set(ids).size).toBe(ids.length);
      }
      // The data README counts 73 reused ids in 49 conversations.
      expect(renamedTotal).toBe(73);
    });
  });
});
