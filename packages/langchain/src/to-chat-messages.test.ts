import { type AssistantMessage, CtxkitError, type UserMessage } from '@ctxkit/core';
import { contentText } from '@ctxkit/core/strategy-kit';
import {
  AIMessage,
  AIMessageChunk,
  ChatMessage as LangChainRoleMessage,
  FunctionMessage,
  HumanMessage,
  SystemMessage,
  ToolMessage,
} from '@langchain/core/messages';
import fc from 'fast-check';

import { arbAIMessage, arbHumanMessage, arbLangChainMessage } from './__fixtures__/arb-langchain-messages';
import { LangChainMessageError } from './langchain-errors';
import type { LangChainChatMessage } from './langchain-origin';
import { toChatMessage, toChatMessages } from './to-chat-messages';

describe('toChatMessage', () => {
  test('each type maps to its ctxkit role; text, tool calls and call ids are what strategies see', () => {
    const messages = toChatMessages([
      new SystemMessage('Be brief.'),
      new HumanMessage({ content: 'Find JFK flights', name: 'alice' }),
      new AIMessage({
        content: '',
        tool_calls: [{ id: 'c1', name: 'search', args: { from: 'JFK', max: 3 }, type: 'tool_call' }],
      }),
      new ToolMessage({ content: '3 flights', tool_call_id: 'c1', name: 'search' }),
      new AIMessage('Here they are.'),
    ]);
    expect(messages.map(({ langchain: _origin, ...rest }) => rest)).toEqual([
      { role: 'system', content: 'Be brief.' },
      { role: 'user', content: 'Find JFK flights', name: 'alice' },
      {
        role: 'assistant',
        content: null,
        tool_calls: [{ id: 'c1', type: 'function', function: { name: 'search', arguments: '{"from":"JFK","max":3}' } }],
      },
      { role: 'tool', tool_call_id: 'c1', content: '3 flights' },
      { role: 'assistant', content: 'Here they are.' },
    ]);
  });

  test(
    'images in every LangChain form become image_url parts; blocks without a ctxkit slot are carried, not ' + 'shown',
    () => {
      const [message] = toChatMessages([
        new HumanMessage({
          content: [
            { type: 'text', text: 'Compare' },
            { type: 'image_url', image_url: 'https://example.com/a.png' },
            { type: 'image_url', image_url: { url: 'https://example.com/b.png', detail: 'high' } },
            { type: 'image', url: 'https://example.com/c.png' },
            { type: 'image', data: 'iVBORw0KGgo=', mimeType: 'image/png' },
            { type: 'image', source_type: 'base64', data: '/9j/4AAQ', mime_type: 'image/jpeg' },
            { type: 'image', data: new Uint8Array([1, 2, 3]), mimeType: 'image/gif' },
            { type: 'image', fileId: 'file-1' },
            { type: 'file', url: 'https://example.com/report.pdf', mimeType: 'application/pdf' },
          ] as never,
        }),
      ]);
      expect((message as UserMessage).content).toEqual([
        { type: 'text', text: 'Compare' },
        { type: 'image_url', image_url: { url: 'https://example.com/a.png' } },
        { type: 'image_url', image_url: { url: 'https://example.com/b.png', detail: 'high' } },
        { type: 'image_url', image_url: { url: 'https://example.com/c.png' } },
        { type: 'image_url', image_url: { url: 'data:image/png;base64,iVBORw0KGgo=' } },
        { type: 'image_url', image_url: { url: 'data:image/jpeg;base64,/9j/4AAQ' } },
        { type: 'image_url', image_url: { url: 'data:image/gif;base64,AQID' } },
      ]);
      expect((message!.langchain!.fields.content as unknown[]).length).toBe(9);
    },
  );

  test('reasoning and thinking blocks go to reasoning, as received, with their provider', () => {
    const [message] = toChatMessages([
      new AIMessage({
        content: [
          { type: 'thinking', thinking: 'Policy says no.', signature: 's1' },
          { type: 'reasoning', reasoning: 'Checked twice.' },
          { type: 'text', text: 'Sorry, ' },
          { type: 'text', text: 'I cannot.' },
        ] as never,
        response_metadata: { model_provider: 'anthropic' },
      }),
    ]);
    const assistant = message as AssistantMessage;
    expect(assistant.content).toBe('Sorry, I cannot.');
    expect(assistant.reasoning).toEqual([
      { provider: 'anthropic', data: { type: 'thinking', thinking: 'Policy says no.', signature: 's1' } },
      { provider: 'anthropic', data: { type: 'reasoning', reasoning: 'Checked twice.' } },
    ]);
  });

  test('an output_ref in a ToolMessage metadata is the ctxkit output_ref', () => {
    const [message] = toChatMessages([
      new ToolMessage({
        content: '[tool output trimmed; ref=to_1]',
        tool_call_id: 'c1',
        metadata: { output_ref: { id: 'to_1', byte_size: 9 } },
      }),
    ]);
    expect(message).toMatchObject({ role: 'tool', output_ref: { id: 'to_1', byte_size: 9 } });
    const [ignored] = toChatMessages([
      new ToolMessage({ content: 'x', tool_call_id: 'c1', metadata: { output_ref: { id: 7 } } }),
    ]);
    expect(ignored).not.toHaveProperty('output_ref');
  });

  test('property: the ctxkit text is LangChain text; every tool call keeps its id and name, its args as JSON', () => {
    fc.assert(
      fc.property(fc.oneof(arbHumanMessage, arbAIMessage), (message) => {
        const chat = toChatMessage(message);
        if (chat.role === 'assistant') {
          expect(chat.content ?? '').toBe(message.text);
          const calls = (message as AIMessage).tool_calls ?? [];
          expect(
            (chat.tool_calls ?? []).map((call) => [call.id, call.function.name, JSON.parse(call.function.arguments)]),
          ).toEqual(calls.map((call) => [call.id, call.name, JSON.parse(JSON.stringify(call.args))]));
          if (chat.content === null) expect(calls.length).toBeGreaterThan(0);
        } else {
          const parts =
            typeof chat.content === 'string'
              ? [chat.content]
              : chat.content.filter((part) => part.type === 'text').map((part) => (part as { text: string }).text);
          expect(parts.join('')).toBe(message.text);
        }
      }),
      { numRuns: 200, seed: 7 },
    );
  });

  test('property: converting never mutates the LangChain message', () => {
    fc.assert(
      fc.property(arbLangChainMessage, (message) => {
        const before = JSON.stringify(message.toDict());
        toChatMessage(message);
        expect(JSON.stringify(message.toDict())).toBe(before);
      }),
      { numRuns: 100, seed: 11 },
    );
  });

  test('a chunk converts like its message', () => {
    const chunk = new AIMessageChunk({
      content: 'partial',
      tool_calls: [{ id: 'c9', name: 'think', args: {}, type: 'tool_call' }],
    });
    const chat = toChatMessage(chunk) as LangChainChatMessage & AssistantMessage;
    expect(chat.langchain!.chunk).toBe(true);
    expect(contentText(chat.content)).toBe('partial');
    expect(chat.tool_calls![0]!.function.arguments).toBe('{}');
  });
});

describe('bad input', () => {
  test.each([
    [
      'a FunctionMessage',
      () => new FunctionMessage({ content: 'x', name: 'f' }),
      /function message has no ctxkit equivalent/,
    ],
    [
      'a ChatMessage with a custom role',
      () => new LangChainRoleMessage('x', 'critic'),
      /generic message has no ctxkit equivalent/,
    ],
    ['a plain object', () => ({ role: 'user', content: 'hi' }), /not a LangChain message/],
    [
      'a tool call without an id',
      () => new AIMessage({ content: '', tool_calls: [{ name: 'search', args: {} }] }),
      /tool call "search" has no id/,
    ],
    [
      'args that are not JSON',
      () => new AIMessage({ content: '', tool_calls: [{ id: 'c1', name: 'big', args: { n: 10n } }] }),
      /args of tool call "big" are not JSON/,
    ],
  ])('%s is rejected with a typed error naming its index and the fix', (_name, make, pattern) => {
    let error: unknown;
    try {
      toChatMessages([new HumanMessage('ok'), make() as never]);
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(LangChainMessageError);
    expect(CtxkitError.isInstance(error)).toBe(true);
    const typed = error as LangChainMessageError;
    expect(typed.code).toBe('CTXKIT_HISTORY_INVALID');
    expect(typed.details.index).toBe(1);
    expect(typed.message).toMatch(pattern);
    expect(typed.fix).toBeTruthy();
  });
});
