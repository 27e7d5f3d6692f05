import { type ChatMessage } from '@ctxkit/core';
import { findPayloadProblems } from '@ctxkit/core/strategy-kit';
import { loadConversations } from '@ctxkit/core/testing';
import type { AgentInputItem } from '@openai/agents';
import fc from 'fast-check';

import {
  AgentInputItemError,
  ChatMessageItemError,
  type OpenAIAgentsChatMessage,
  toAgentInputItems,
  toChatMessages,
} from './index';
import { arbAnyItems, arbCanonicalChat } from './testing/agent-item-arbitraries';

function plain(messages: readonly OpenAIAgentsChatMessage[]): ChatMessage[] {
  return messages.map(({ openaiAgents: _origin, ...message }) => message as ChatMessage);
}

describe('toChatMessages / toAgentInputItems', () => {
  test('property: any items convert to ctxkit messages and back to the same item objects, in order', () => {
    fc.assert(
      fc.property(arbAnyItems(), (items) => {
        const back = toAgentInputItems(toChatMessages(items));
        expect(back).toHaveLength(items.length);
        back.forEach((item, index) => expect(item).toBe(items[index]));
      }),
      { numRuns: 300, seed: 20250101 },
    );
  });

  test('property: the round trip is identical also when the messages were copied (JSON, spreads)', () => {
    fc.assert(
      fc.property(arbAnyItems(), (items) => {
        const copied = JSON.parse(JSON.stringify(toChatMessages(items))) as OpenAIAgentsChatMessage[];
        expect(toAgentInputItems(copied.map((message) => ({ ...message })))).toEqual(JSON.parse(JSON.stringify(items)));
      }),
      { numRuns: 200, seed: 7 },
    );
  });

  test('property: ctxkit messages convert to items and back to the same messages', () => {
    fc.assert(
      fc.property(arbCanonicalChat(), (messages) => {
        const items = toAgentInputItems(messages);
        expect(plain(toChatMessages(items))).toEqual(messages);
        expect(
          findPayloadProblems(plain(toChatMessages(JSON.parse(JSON.stringify(items)) as AgentInputItem[]))),
        ).toEqual(findPayloadProblems(messages));
      }),
      { numRuns: 200, seed: 11 },
    );
  });

  test(
    'one model step (reasoning, text, parallel calls) is one assistant message with its tool calls; results are ' +
      'tool messages',
    () => {
      const items: AgentInputItem[] = [
        { role: 'user', content: 'Book me a flight' },
        { type: 'reasoning', id: 'rs_1', content: [{ type: 'input_text', text: 'search first' }] },
        {
          type: 'message',
          role: 'assistant',
          status: 'completed',
          content: [{ type: 'output_text', text: 'Searching.' }],
        },
        { type: 'function_call', callId: 'c1', name: 'search', arguments: '{"from":"SFO"}' },
        { type: 'function_call', callId: 'c2', name: 'search', arguments: '{"from":"LAX"}' },
        {
          type: 'function_call_result',
          callId: 'c1',
          name: 'search',
          status: 'completed',
          output: { type: 'text', text: 'UA 100' },
        },
        { type: 'function_call_result', callId: 'c2', name: 'search', status: 'completed', output: 'none' },
        {
          type: 'message',
          role: 'assistant',
          status: 'completed',
          content: [{ type: 'output_text', text: 'UA 100 it is.' }],
        },
      ];
      const messages = toChatMessages(items);
      expect(plain(messages)).toEqual([
        { role: 'user', content: 'Book me a flight' },
        {
          role: 'assistant',
          content: 'Searching.',
          tool_calls: [
            { id: 'c1', type: 'function', function: { name: 'search', arguments: '{"from":"SFO"}' } },
            { id: 'c2', type: 'function', function: { name: 'search', arguments: '{"from":"LAX"}' } },
          ],
          reasoning: [{ provider: 'openai', data: items[1] }],
        },
        { role: 'tool', tool_call_id: 'c1', content: 'UA 100' },
        { role: 'tool', tool_call_id: 'c2', content: 'none' },
        { role: 'assistant', content: 'UA 100 it is.' },
      ]);
      expect(findPayloadProblems(messages)).toEqual([]);
    },
  );

  test(
    'a changed message is rebuilt from its ctxkit fields and keeps the ids, statuses and providerData of its ' +
      'items',
    () => {
      const items: AgentInputItem[] = [
        { role: 'user', content: 'hi', id: 'u1', providerData: { tag: 1 } },
        { type: 'function_call', callId: 'c1', name: 'grep', arguments: '{}', id: 'fc_1', status: 'completed' },
        {
          type: 'function_call_result',
          callId: 'c1',
          name: 'grep',
          status: 'completed',
          id: 'out_1',
          output: { type: 'text', text: 'x'.repeat(100) },
        },
      ];
      const [user, call, tool] = toChatMessages(items);
      const back = toAgentInputItems([
        { ...user!, content: 'hi [cut]' },
        call!,
        { ...tool!, content: 'xxxx [... truncated 96 chars ...]' },
      ]);
      expect(back[0]).toEqual({ role: 'user', content: 'hi [cut]', id: 'u1', providerData: { tag: 1 } });
      expect(back[1]).toBe(items[1]);
      expect(back[2]).toEqual({
        type: 'function_call_result',
        callId: 'c1',
        name: 'grep',
        status: 'completed',
        id: 'out_1',
        output: { type: 'text', text: 'xxxx [... truncated 96 chars ...]' },
      });
    },
  );

  test(
    'messages a strategy adds (a summary, a tool result without origin) become items; parts without a slot read ' +
      'as markers',
    () => {
      const back = toAgentInputItems([
        {
          role: 'system',
          content: [
            { type: 'text', text: 'Summary: ' },
            { type: 'text', text: 'booked' },
          ],
        },
        {
          role: 'assistant',
          content: null,
          tool_calls: [
            { id: 'r1', type: 'function', function: { name: 'tool_output_cache', arguments: '{"ref":"to_1"}' } },
          ],
        },
        { role: 'tool', tool_call_id: 'r1', content: 'the output' },
      ]);
      expect(back).toEqual([
        { role: 'system', content: 'Summary: \nbooked' },
        { type: 'function_call', callId: 'r1', name: 'tool_output_cache', arguments: '{"ref":"to_1"}' },
        {
          type: 'function_call_result',
          status: 'completed',
          callId: 'r1',
          name: 'tool_output_cache',
          output: 'the output',
        },
      ]);
      const [user] = toChatMessages([
        {
          role: 'user',
          content: [
            { type: 'input_file', file: { id: 'file_9' }, filename: 'report.pdf' },
            { type: 'input_text', text: 'read it' },
          ],
        },
      ]);
      expect(user!.content).toEqual([
        { type: 'text', text: '[file: report.pdf]' },
        { type: 'text', text: 'read it' },
      ]);
    },
  );

  test('every bundled real conversation converts to items and back to the same messages', () => {
    for (const record of [
      ...loadConversations('tau-bench-airline').slice(0, 5),
      ...loadConversations('openhands-multi-swe-bench'),
    ]) {
      const normalized = record.history.map((message): ChatMessage =>
        message.role === 'assistant' && message.tool_calls?.length && message.content === ''
          ? { ...message, content: null }
          : message,
      );
      expect(plain(toChatMessages(toAgentInputItems(normalized)))).toEqual(normalized);
    }
  });

  test('bad items are refused with a typed error naming the item', () => {
    const bad: unknown[] = [
      null,
      'text',
      { role: 'robot', content: 'x' },
      { type: 'function_call', name: 'f', arguments: '{}' },
      { type: 'function_call', callId: 'c', name: 'f', arguments: {} },
      { type: 42 },
    ];
    for (const item of bad) {
      const attempt = () => toChatMessages([{ role: 'user', content: 'ok' }, item as AgentInputItem]);
      expect(attempt).toThrow(AgentInputItemError);
      try {
        attempt();
      } catch (error) {
        expect((error as AgentInputItemError).code).toBe('CTXKIT_HISTORY_INVALID');
        expect((error as AgentInputItemError).details.index).toBe(1);
      }
    }
    expect(() => toChatMessages('hello' as unknown as AgentInputItem[])).toThrow(AgentInputItemError);
  });

  test('a tool message whose call is not before it, or an unknown role, is refused with a typed error', () => {
    expect(() => toAgentInputItems([{ role: 'tool', tool_call_id: 'nowhere', content: 'x' }])).toThrow(
      ChatMessageItemError,
    );
    expect(() => toAgentInputItems([{ role: 'robot', content: 'x' } as unknown as ChatMessage])).toThrow(
      /unknown role/,
    );
  });
});
