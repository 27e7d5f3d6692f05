import type { ChatMessage } from '@ctxkit/core';
import { arbHistory, arbHostileHistory } from '@ctxkit/core/testing/generators';
import { AIMessage, HumanMessage, SystemMessage, ToolMessage } from '@langchain/core/messages';
import fc from 'fast-check';

import {
  arbAIMessage,
  arbHumanMessage,
  arbLangChainMessage,
  arbSystemMessage,
  arbToolMessage,
  messageFields,
} from './__fixtures__/arb-langchain-messages';
import { fromChatMessage, fromChatMessages } from './from-chat-messages';
import type { LangChainChatMessage } from './langchain-origin';
import { toChatMessages } from './to-chat-messages';

const RUNS = { numRuns: 200, seed: 20250101 };

/** A ctxkit message without what it carries of LangChain: what a strategy built from scratch would hold. */
function plain(message: LangChainChatMessage): ChatMessage {
  const { langchain: _origin, ...rest } = message;
  return rest as ChatMessage;
}

describe('LangChain → ctxkit → LangChain', () => {
  test.each([
    ['SystemMessage', arbSystemMessage],
    ['HumanMessage (text, images, files, audio)', arbHumanMessage],
    ['AIMessage (text, reasoning, thinking, tool calls, invalid calls, usage, chunks)', arbAIMessage],
    ['ToolMessage (text, images, status, artifact, metadata)', arbToolMessage],
  ])('%s: a message passed through comes back as the same object', (_name, arbitrary) => {
    fc.assert(
      fc.property(
        fc.array(arbitrary as fc.Arbitrary<import('@langchain/core/messages').BaseMessage>, { maxLength: 5 }),
        (messages) => {
          const back = fromChatMessages(toChatMessages(messages));
          back.forEach((message, index) => expect(message).toBe(messages[index]));
        },
      ),
      RUNS,
    );
  });

  test('a message a strategy copied (structuredClone) comes back with every field identical, class included', () => {
    fc.assert(
      fc.property(fc.array(arbLangChainMessage, { maxLength: 6 }), (messages) => {
        const back = fromChatMessages(structuredClone(toChatMessages(messages)));
        expect(back.map((message) => messageFields(message, { artifact: false }))).toEqual(
          messages.map((message) => messageFields(message, { artifact: false })),
        );
        back.forEach((message, index) => expect(message).not.toBe(messages[index]));
      }),
      RUNS,
    );
  });

  test('a spread copy (as strategies make) keeps the original object, artifact included', () => {
    fc.assert(
      fc.property(fc.array(arbLangChainMessage, { maxLength: 6 }), (messages) => {
        const back = fromChatMessages(
          toChatMessages(messages).map((message) => ({ ...message }) as LangChainChatMessage),
        );
        expect(back.map((message) => messageFields(message))).toEqual(
          messages.map((message) => messageFields(message)),
        );
      }),
      RUNS,
    );
  });

  test('a message a strategy changed takes the ctxkit content and keeps the rest of its original', () => {
    const original = new ToolMessage({
      content: 'line 1\nline 2\nline 3',
      tool_call_id: 'call_7',
      name: 'read_file',
      status: 'success',
      id: 'm-9',
      metadata: { source: 'disk' },
    });
    const [chat] = toChatMessages([original]);
    const changed = {
      ...chat!,
      content: '[tool output trimmed; ref=to_1]',
      output_ref: { id: 'to_1', byte_size: 20 },
    } as LangChainChatMessage;
    const back = fromChatMessage(changed) as ToolMessage;
    expect(back).not.toBe(original);
    expect(back).toBeInstanceOf(ToolMessage);
    expect(back.content).toBe('[tool output trimmed; ref=to_1]');
    expect(back.tool_call_id).toBe('call_7');
    expect(back.name).toBe('read_file');
    expect(back.status).toBe('success');
    expect(back.id).toBe('m-9');
    expect(back.metadata).toEqual({ source: 'disk', output_ref: { id: 'to_1', byte_size: 20 } });
  });

  test('a changed AI message keeps its id, usage and invalid calls; its tool calls are what ctxkit holds', () => {
    const original = new AIMessage({
      content: [
        { type: 'thinking', thinking: 'check the policy', signature: 'sig' },
        { type: 'text', text: 'Looking it up.' },
      ],
      tool_calls: [{ id: 'c1', name: 'search', args: { q: 'JFK' }, type: 'tool_call' }],
      invalid_tool_calls: [{ id: 'c2', name: 'search', args: '{"q":', error: 'bad json', type: 'invalid_tool_call' }],
      usage_metadata: { input_tokens: 10, output_tokens: 5, total_tokens: 15 },
      id: 'ai-1',
    });
    const [chat] = toChatMessages([original]);
    const back = fromChatMessage({ ...chat!, content: 'Looking' } as LangChainChatMessage) as AIMessage;
    expect(back.content).toEqual([
      { type: 'thinking', thinking: 'check the policy', signature: 'sig' },
      { type: 'text', text: 'Looking' },
    ]);
    expect(back.tool_calls).toEqual([{ id: 'c1', name: 'search', args: { q: 'JFK' }, type: 'tool_call' }]);
    expect(back.invalid_tool_calls).toEqual(original.invalid_tool_calls);
    expect(back.usage_metadata).toEqual(original.usage_metadata);
    expect(back.id).toBe('ai-1');
  });

  test('an origin of another type (a tampered message) is ignored', () => {
    const [chat] = toChatMessages([new HumanMessage({ content: 'hi', id: 'h1' })]);
    const back = fromChatMessage({
      role: 'assistant',
      content: 'hello',
      langchain: chat!.langchain,
    } as LangChainChatMessage);
    expect(back).toBeInstanceOf(AIMessage);
    expect(back.content).toBe('hello');
    expect(back.id).toBeUndefined();
  });
});

describe('ctxkit → LangChain → ctxkit', () => {
  test(
    'generated histories (tool-call groups, reused and prototype-key ids, huge outputs, orphans, dangling calls) ' +
      'come back identical',
    () => {
      fc.assert(
        fc.property(fc.oneof(arbHistory(), arbHostileHistory()), (history) => {
          const back = toChatMessages(fromChatMessages(history)).map(plain);
          expect(back).toEqual(history);
        }),
        { numRuns: 100, seed: 20250101 },
      );
    },
  );

  test('every content part and field ctxkit has comes back identical', () => {
    const history: ChatMessage[] = [
      {
        role: 'system',
        content: [
          { type: 'text', text: 'Policy A' },
          { type: 'text', text: 'Policy B' },
        ],
        name: 'policy',
      },
      {
        role: 'user',
        content: [
          { type: 'text', text: 'What is on this picture?' },
          { type: 'image_url', image_url: { url: 'https://example.com/a.png', detail: 'low' } },
        ],
        name: 'alice',
      },
      {
        role: 'assistant',
        content: 'Let me look.',
        name: 'model',
        tool_calls: [
          {
            id: 'c1',
            type: 'function',
            function: { name: 'describe', arguments: '{"url":"https://example.com/a.png"}' },
          },
        ],
        reasoning: [
          { provider: 'anthropic', data: { type: 'thinking', thinking: 'It is an image.', signature: 'abc' } },
          { provider: 'openai', data: { type: 'reasoning', id: 'rs_1', summary: [] } },
        ],
      },
      {
        role: 'tool',
        tool_call_id: 'c1',
        content: [{ type: 'text', text: 'A cat.' }],
        output_ref: { id: 'to_0123', byte_size: 6, line_count: 1 },
      },
      {
        role: 'assistant',
        content: null,
        tool_calls: [{ id: 'c2', type: 'function', function: { name: 'finish', arguments: '{}' } }],
      },
    ];
    expect(toChatMessages(fromChatMessages(history)).map(plain)).toEqual(history);
  });

  test(
    'a tool message is named after the call it answers; arguments that are not a JSON object become an invalid ' +
      'call',
    () => {
      const back = fromChatMessages([
        { role: 'user', content: 'go' },
        {
          role: 'assistant',
          content: null,
          tool_calls: [
            { id: 'c1', type: 'function', function: { name: 'search', arguments: '{"q":"x"}' } },
            { id: 'c2', type: 'function', function: { name: 'search', arguments: '[1,2]' } },
          ],
        },
        { role: 'tool', tool_call_id: 'c1', content: 'found' },
        { role: 'tool', tool_call_id: 'c2', content: 'error' },
      ]);
      const ai = back[1] as AIMessage;
      expect(ai.content).toBe('');
      expect(ai.tool_calls).toEqual([{ id: 'c1', name: 'search', args: { q: 'x' }, type: 'tool_call' }]);
      expect(ai.invalid_tool_calls).toEqual([
        {
          id: 'c2',
          name: 'search',
          args: '[1,2]',
          error: 'the arguments are not a JSON object',
          type: 'invalid_tool_call',
        },
      ]);
      expect((back[2] as ToolMessage).name).toBe('search');
      expect(back[0]).toBeInstanceOf(HumanMessage);
    },
  );

  test('a strategy memory block (a system message built from scratch) becomes a SystemMessage', () => {
    const [message] = fromChatMessages([{ role: 'system', content: '<summary>earlier</summary>' }]);
    expect(message).toBeInstanceOf(SystemMessage);
    expect(message!.content).toBe('<summary>earlier</summary>');
  });
});
