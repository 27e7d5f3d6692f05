import { type ChatMessage } from '@ctxkit/core';
import { findPayloadProblems } from '@ctxkit/core/strategy-kit';
import { loadConversations } from '@ctxkit/core/testing';
import type { ModelMessage } from 'ai';
import fc from 'fast-check';

import { AI_SDK_REASONING_PROVIDER } from './kept-assistant-part';
import { arbAnyMessages, arbCanonicalConversation } from './testing/model-message-arbitraries';
import { plain } from './testing/plain';
import { toChatMessages } from './to-chat-messages';
import { toLanguageModelPrompt, toModelMessages } from './to-model-messages';

const NUM_RUNS = 150;

function jsonClone<T>(value: T): T {
  return JSON.parse(JSON.stringify(value)) as T;
}

/** The strategy's view of messages without the positions of kept parts (text merged from several parts moves them). */
function view(messages: ChatMessage[]): unknown {
  return plain(
    messages.map((message) =>
      message.role === 'assistant' && message.reasoning
        ? {
            ...message,
            reasoning: message.reasoning.map((item) =>
              item.provider === AI_SDK_REASONING_PROVIDER ? { ...item, data: { ...item.data, index: 0 } } : item,
            ),
          }
        : message,
    ),
  );
}

function withoutApprovalOnlyToolMessages(messages: ModelMessage[]): ModelMessage[] {
  return messages.filter(
    (message) => message.role !== 'tool' || message.content.some((part) => part.type === 'tool-result'),
  );
}

describe('toModelMessages', () => {
  it(
    'gives back exactly the messages toChatMessages was given when the strategy keeps them (every part type and ' +
      'data form)',
    () => {
      fc.assert(
        fc.property(arbAnyMessages(), (messages) => {
          const back = toModelMessages(toChatMessages(messages));
          const expected = withoutApprovalOnlyToolMessages(messages);
          expect(back).toHaveLength(expected.length);
          back.forEach((message, index) => expect(message).toBe(expected[index]));
        }),
        { numRuns: NUM_RUNS },
      );
    },
  );

  it('rebuilds canonical messages deep-equal from the ctxkit fields alone, after a trip through JSON', () => {
    fc.assert(
      fc.property(arbCanonicalConversation(), (messages) => {
        const stored = jsonClone(toChatMessages(messages));
        expect(plain(toModelMessages(stored))).toEqual(plain(messages));
      }),
      { numRuns: NUM_RUNS },
    );
  });

  it("keeps the strategy's view of any messages through a rebuild from the ctxkit fields", () => {
    fc.assert(
      fc.property(arbAnyMessages(), (messages) => {
        const stored = jsonClone(toChatMessages(messages));
        expect(view(jsonClone(toChatMessages(toModelMessages(stored))))).toEqual(view(stored));
      }),
      { numRuns: NUM_RUNS },
    );
  });

  it('writes a provider-level prompt with part arrays only, the kept messages as they came', () => {
    fc.assert(
      fc.property(arbCanonicalConversation(), (messages) => {
        const prompt = toLanguageModelPrompt(jsonClone(toChatMessages(messages)));
        for (const message of prompt) {
          if (message.role === 'system') expect(typeof message.content).toBe('string');
          else expect(Array.isArray(message.content)).toBe(true);
        }
        const kept = toLanguageModelPrompt(toChatMessages(messages));
        kept.forEach((message, index) => {
          const source = messages[index]!;
          if (typeof source.content !== 'string' || source.role === 'system') expect(message).toBe(source);
          else expect(message.content).toEqual([{ type: 'text', text: source.content }]);
        });
      }),
      { numRuns: 50 },
    );
  });

  it('names the tool of a rebuilt result from its call, by id and then by position (real data reuses ids)', () => {
    const history: ChatMessage[] = [
      { role: 'user', content: 'Two lookups.' },
      {
        role: 'assistant',
        content: null,
        tool_calls: [
          { id: 'call_0', type: 'function', function: { name: 'get_user_details', arguments: '{"user_id":"a"}' } },
          {
            id: 'call_0',
            type: 'function',
            function: { name: 'get_reservation_details', arguments: '{"reservation_id":"B"}' },
          },
        ],
      },
      { role: 'tool', tool_call_id: 'call_0', content: 'user a' },
      { role: 'tool', tool_call_id: 'call_0', content: 'reservation B' },
    ];
    const [, assistant, tool] = toModelMessages(history);
    expect(assistant).toEqual({
      role: 'assistant',
      content: [
        { type: 'tool-call', toolCallId: 'call_0', toolName: 'get_user_details', input: { user_id: 'a' } },
        {
          type: 'tool-call',
          toolCallId: 'call_0',
          toolName: 'get_reservation_details',
          input: { reservation_id: 'B' },
        },
      ],
    });
    expect(tool).toEqual({
      role: 'tool',
      content: [
        {
          type: 'tool-result',
          toolCallId: 'call_0',
          toolName: 'get_user_details',
          output: { type: 'text', value: 'user a' },
        },
        {
          type: 'tool-result',
          toolCallId: 'call_0',
          toolName: 'get_reservation_details',
          output: { type: 'text', value: 'reservation B' },
        },
      ],
    });
  });

  it('sends a changed tool result as text among the unchanged ones, in one tool message', () => {
    const messages: ModelMessage[] = [
      { role: 'user', content: 'List and read.' },
      {
        role: 'assistant',
        content: [
          { type: 'tool-call', toolCallId: 'a', toolName: 'execute_bash', input: { command: 'ls' } },
          {
            type: 'tool-call',
            toolCallId: 'b',
            toolName: 'str_replace_editor',
            input: { command: 'view', path: 'main.go' },
          },
        ],
      },
      {
        role: 'tool',
        content: [
          {
            type: 'tool-result',
            toolCallId: 'a',
            toolName: 'execute_bash',
            output: { type: 'json', value: { files: ['main.go'] } },
          },
          {
            type: 'tool-result',
            toolCallId: 'b',
            toolName: 'str_replace_editor',
            output: { type: 'text', value: 'package main\n'.repeat(50) },
          },
        ],
      },
    ];
    const chat = toChatMessages(messages);
    const cut = {
      ...(chat[3] as Extract<ChatMessage, { role: 'tool' }>),
      content: '[tool output trimmed; ref=to_0123]',
    };
    const back = toModelMessages([...chat.slice(0, 3), cut]);
    expect(back.slice(0, 2)).toEqual(messages.slice(0, 2));
    expect(back[2]).toEqual({
      role: 'tool',
      content: [
        (messages[2] as Extract<ModelMessage, { role: 'tool' }>).content[0],
        {
          type: 'tool-result',
          toolCallId: 'b',
          toolName: 'str_replace_editor',
          output: { type: 'text', value: '[tool output trimmed; ref=to_0123]' },
        },
      ],
    });
  });

  it.each(['tau-bench-airline', 'openhands-multi-swe-bench'] as const)(
    'carries every bundled %s conversation to the AI SDK and back (arguments as compact JSON)',
    (name) => {
      const normalized = (messages: ChatMessage[]) =>
        messages.map((message) =>
          message.role === 'assistant' && message.tool_calls
            ? {
                ...message,
                tool_calls: message.tool_calls.map((call) => ({
                  ...call,
                  function: { ...call.function, arguments: JSON.stringify(JSON.parse(call.function.arguments)) },
                })),
              }
            : message,
        );
      for (const record of loadConversations(name)) {
        const back = toChatMessages(toModelMessages(record.messages));
        expect(plain(back)).toEqual(plain(normalized(record.messages)));
        expect(findPayloadProblems(back)).toEqual(findPayloadProblems(record.messages));
      }
    },
  );
});
