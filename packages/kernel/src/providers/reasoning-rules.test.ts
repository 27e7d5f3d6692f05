import type { ChatMessage } from '@ctxkit/core';

import { toAnthropicMessages } from './anthropic-adapter';
import { findProviderProblems } from './validate-for-provider';

const call = (id: string) => ({
  id,
  type: 'function' as const,
  function: { name: 'get_reservation', arguments: '{"id":"4WQ150"}' },
});
const thinking = (text: string) => ({
  provider: 'anthropic',
  data: { type: 'thinking', thinking: text, signature: `sig-${text.length}` },
});
const reasoningItem = (id: string) => ({
  provider: 'openai',
  data: { type: 'reasoning', id, summary: [{ type: 'summary_text', text: 'Look it up.' }], encrypted_content: 'gAAAA' },
});

const system: ChatMessage = { role: 'system', content: 'You are a booking agent.' };
const ask: ChatMessage = { role: 'user', content: 'What is on reservation 4WQ150?' };

describe('thinking and reasoning rules', () => {
  describe('#anthropic', () => {
    // The 400s users report: "a final assistant message must start with a thinking block",
    // "thinking.signature: Field required".
    it('accepts a tool loop that keeps its signed thinking block first', () => {
      const messages: ChatMessage[] = [
        system,
        ask,
        {
          role: 'assistant',
          content: null,
          tool_calls: [call('toolu_1')],
          reasoning: [thinking('Need the reservation.')],
        },
        { role: 'tool', tool_call_id: 'toolu_1', content: '{"flights":["HAT039"]}' },
      ];
      expect(findProviderProblems('anthropic', messages)).toEqual([]);
    });

    it('reports a tool loop whose thinking block was lost while the conversation thinks', () => {
      const messages: ChatMessage[] = [
        system,
        ask,
        { role: 'assistant', content: 'Checking.', reasoning: [thinking('Earlier thought.')] },
        { role: 'user', content: 'And the other one?' },
        { role: 'assistant', content: null, tool_calls: [call('toolu_2')] },
        { role: 'tool', tool_call_id: 'toolu_2', content: '{}' },
      ];
      expect(findProviderProblems('anthropic', messages).map((problem) => problem.rule)).toEqual([
        'anthropic-thinking-missing',
      ]);
    });

    it('reports a thinking block without its signature', () => {
      const messages: ChatMessage[] = [
        system,
        ask,
        {
          role: 'assistant',
          content: 'Done.',
          reasoning: [{ provider: 'anthropic', data: { type: 'thinking', thinking: 'edited' } }],
        },
      ];
      expect(findProviderProblems('anthropic', messages).map((problem) => problem.rule)).toEqual([
        'anthropic-thinking-signature',
      ]);
    });

    it('puts the thinking blocks of merged assistant messages first', () => {
      const messages: ChatMessage[] = [
        system,
        ask,
        { role: 'assistant', content: 'One moment.' },
        { role: 'assistant', content: null, tool_calls: [call('toolu_3')], reasoning: [thinking('Look it up.')] },
        { role: 'tool', tool_call_id: 'toolu_3', content: '{}' },
      ];
      const converted = toAnthropicMessages(messages).messages;
      expect(converted[1]!.content.map((block) => block.type)).toEqual(['thinking', 'text', 'tool_use']);
      expect(findProviderProblems('anthropic', messages)).toEqual([]);
    });
  });

  describe('#openai-responses', () => {
    // The 400 users report: "Item 'rs_…' of type 'reasoning' was provided without its required following item."
    it('accepts reasoning items right before the function_call they came with', () => {
      const messages: ChatMessage[] = [
        system,
        ask,
        { role: 'assistant', content: null, tool_calls: [call('call_1')], reasoning: [reasoningItem('rs_1')] },
        { role: 'tool', tool_call_id: 'call_1', content: '{}' },
      ];
      expect(findProviderProblems('openai-responses', messages)).toEqual([]);
    });

    it('reports a reasoning item left without its following item', () => {
      const messages: ChatMessage[] = [
        system,
        ask,
        { role: 'assistant', content: '', reasoning: [reasoningItem('rs_2')] },
        { role: 'user', content: 'Thanks' },
      ];
      const problems = findProviderProblems('openai-responses', messages);
      expect(problems.map((problem) => problem.rule)).toContain('openai-reasoning-without-following-item');
      expect(problems.find((problem) => problem.rule === 'openai-reasoning-without-following-item')!.detail).toMatch(
        /rs_2/,
      );
    });
  });
});
