import { type AssistantMessage, type ChatMessage, createTokenCounter, CtxkitError, ErrorCodes } from '@ctxkit/core';
import { assertHistoryShape, messageText } from '@ctxkit/core/strategy-kit';
import type { ModelMessage } from 'ai';
import fc from 'fast-check';

import { keptPartOf } from './kept-assistant-part';
import { arbAnyMessages } from './testing/model-message-arbitraries';
import { toChatMessages } from './to-chat-messages';

const PNG = Buffer.from('89504e470d0a1a0a0000000d49484452', 'hex');

function rejection(messages: unknown): CtxkitError {
  try {
    toChatMessages(messages as ModelMessage[]);
  } catch (error) {
    if (CtxkitError.isInstance(error)) return error;
    throw error;
  }
  throw new Error('expected a rejection');
}

describe('toChatMessages', () => {
  it('gives a valid, frozen ctxkit history for any AI SDK messages, one tool message per tool result', () => {
    fc.assert(
      fc.property(arbAnyMessages(), (messages) => {
        const chat = toChatMessages(messages);
        assertHistoryShape(chat);
        const results = messages.flatMap((message) =>
          message.role === 'tool' ? message.content.filter((part) => part.type === 'tool-result') : [],
        );
        const tools = chat.filter((message) => message.role === 'tool');
        expect(tools.map((message) => message.tool_call_id)).toEqual(results.map((part) => part.toolCallId));
        for (const message of chat) {
          expect(Object.isFrozen(message)).toBe(true);
          if (Array.isArray(message.content)) expect(Object.isFrozen(message.content)).toBe(true);
        }
      }),
      { numRuns: 150 },
    );
  });

  it(
    "freezes what the conversion built and leaves the AI SDK message's own parts, which a reasoning item carries, " +
      'to the caller',
    () => {
      const reasoning = {
        type: 'reasoning' as const,
        text: 'Check the booking first.',
        providerOptions: { anthropic: { signature: 'sig' } },
      };
      const source: ModelMessage[] = [
        {
          role: 'assistant',
          content: [reasoning, { type: 'tool-call', toolCallId: 'c1', toolName: 'lookup', input: { id: 7 } }],
        },
      ];
      const [message] = toChatMessages(source) as AssistantMessage[];
      expect(
        [
          message,
          message!.tool_calls,
          message!.tool_calls![0],
          message!.tool_calls![0]!.function,
          message!.reasoning,
          message!.reasoning![0],
        ].every((part) => Object.isFrozen(part)),
      ).toBe(true);
      expect(keptPartOf(message!.reasoning![0]!)!.part).toBe(reasoning);
      expect(
        [source[0], source[0]!.content, reasoning, reasoning.providerOptions].some((part) => Object.isFrozen(part)),
      ).toBe(false);
      reasoning.providerOptions.anthropic.signature = 'changed by the caller';
      expect(reasoning.providerOptions.anthropic.signature).toBe('changed by the caller');
    },
  );

  it('never shows file bytes as text: images are image parts, other files a marker', () => {
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 200, maxLength: 2000 }), (bytes) => {
        const data = Buffer.from(bytes);
        const [message] = toChatMessages([
          {
            role: 'user',
            content: [
              { type: 'text', text: 'Here are two files.' },
              { type: 'image', image: data, mediaType: 'image/png' },
              { type: 'file', data, mediaType: 'application/pdf', filename: 'report.pdf' },
            ],
          },
        ]);
        expect(message!.content).toEqual([
          { type: 'text', text: 'Here are two files.' },
          { type: 'image_url', image_url: { url: `data:image/png;base64,${data.toString('base64')}` } },
          { type: 'text', text: '[file report.pdf, application/pdf]' },
        ]);
        expect(messageText(message!)).not.toContain(data.toString('base64'));
      }),
      { numRuns: 20 },
    );
  });

  it('counts an image by the image rule (its detail), not by its base64 length', () => {
    const counter = createTokenCounter({ model: 'gpt-4o' });
    const big = Buffer.alloc(300_000, 7);
    const [high, low] = toChatMessages([
      { role: 'user', content: [{ type: 'image', image: big, mediaType: 'image/png' }] },
      {
        role: 'user',
        content: [
          {
            type: 'file',
            data: { type: 'data', data: big },
            mediaType: 'image/png',
            providerOptions: { openai: { imageDetail: 'low' } },
          },
        ],
      },
    ]);
    expect(counter.countMessage(high!)).toBeLessThan(800);
    expect(counter.countMessage(low!) - counter.countMessage({ role: 'user', content: [] })).toBe(85);
  });

  it('shows an inline text document as its text and a URL image as its URL', () => {
    const [message] = toChatMessages([
      {
        role: 'user',
        content: [
          { type: 'file', data: { type: 'text', text: 'Meeting notes: ship on Friday.' }, mediaType: 'text/plain' },
          { type: 'image', image: new URL('https://example.com/chart.png') },
          { type: 'file', data: 'https://example.com/photo.jpg', mediaType: 'image/jpeg' },
          { type: 'file', data: PNG.toString('base64'), mediaType: 'image' },
        ],
      },
    ]);
    expect(message!.content).toEqual([
      { type: 'text', text: 'Meeting notes: ship on Friday.' },
      { type: 'image_url', image_url: { url: 'https://example.com/chart.png' } },
      { type: 'image_url', image_url: { url: 'https://example.com/photo.jpg' } },
      { type: 'image_url', image_url: { url: `data:image/*;base64,${PNG.toString('base64')}` } },
    ]);
  });

  it('puts tool calls in tool_calls and keeps reasoning and provider-executed tools on the message, in place', () => {
    const reasoning = {
      type: 'reasoning' as const,
      text: 'The user wants the weather.',
      providerOptions: { anthropic: { signature: 'sig-1' } },
    };
    const searched = {
      type: 'tool-call' as const,
      toolCallId: 'ws1',
      toolName: 'web_search',
      input: { query: 'Lisbon' },
      providerExecuted: true,
    };
    const found = {
      type: 'tool-result' as const,
      toolCallId: 'ws1',
      toolName: 'web_search',
      output: { type: 'json' as const, value: { hits: 3 } },
    };
    const [message] = toChatMessages([
      {
        role: 'assistant',
        content: [
          reasoning,
          { type: 'text', text: 'Let me check. ' },
          searched,
          found,
          { type: 'text', text: 'Looking it up.' },
          { type: 'tool-call', toolCallId: 'c1', toolName: 'weather', input: { city: 'Lisbon' } },
        ],
      },
    ]);
    const assistant = message as AssistantMessage;
    expect(assistant.content).toBe('Let me check. Looking it up.');
    expect(assistant.tool_calls).toEqual([
      { id: 'c1', type: 'function', function: { name: 'weather', arguments: '{"city":"Lisbon"}' } },
    ]);
    expect(assistant.reasoning!.map((item) => keptPartOf(item))).toEqual([
      { index: 0, part: reasoning },
      { index: 2, part: searched },
      { index: 3, part: found },
    ]);
  });

  it('gives each tool result the text the model reads', () => {
    const chat = toChatMessages([
      {
        role: 'tool',
        content: [
          { type: 'tool-result', toolCallId: 'a', toolName: 't', output: { type: 'text', value: 'plain' } },
          {
            type: 'tool-result',
            toolCallId: 'b',
            toolName: 't',
            output: { type: 'json', value: { ok: true, items: [1, 2] } },
          },
          {
            type: 'tool-result',
            toolCallId: 'c',
            toolName: 't',
            output: { type: 'error-text', value: 'ENOENT: no such file' },
          },
          {
            type: 'tool-result',
            toolCallId: 'd',
            toolName: 't',
            output: { type: 'execution-denied', reason: 'The user said no.' },
          },
          { type: 'tool-result', toolCallId: 'e', toolName: 't', output: { type: 'execution-denied' } },
          {
            type: 'tool-result',
            toolCallId: 'f',
            toolName: 't',
            output: {
              type: 'content',
              value: [
                { type: 'text', text: 'Screenshot:' },
                { type: 'file', mediaType: 'image/png', data: { type: 'data', data: PNG.toString('base64') } },
              ],
            },
          },
          { type: 'tool-approval-response', approvalId: 'x', approved: true },
        ],
      },
    ]);
    expect(chat.map((message) => [message.role === 'tool' && message.tool_call_id, message.content])).toEqual([
      ['a', 'plain'],
      ['b', '{"ok":true,"items":[1,2]}'],
      ['c', 'ENOENT: no such file'],
      ['d', 'The user said no.'],
      ['e', 'Tool execution denied.'],
      ['f', 'Screenshot:\n[file image/png]'],
    ]);
  });

  it.each<[string, unknown, RegExp]>([
    ['a list that is not an array', { role: 'user', content: 'hi' }, /messages\[-1\]: the messages must be an array/],
    ['a message that is not an object', ['hello'], /messages\[0\]: not a message object/],
    [
      'an unknown role',
      [
        { role: 'user', content: 'hi' },
        { role: 'developer', content: 'x' },
      ],
      /messages\[1\]: unknown role "developer"/,
    ],
    [
      'system content that is not a string',
      [{ role: 'system', content: [{ type: 'text', text: 'x' }] }],
      /messages\[0\]: a system message needs string content/,
    ],
    [
      'user content of the wrong type',
      [{ role: 'user', content: 42 }],
      /messages\[0\]: user content must be a string or an array of parts/,
    ],
    [
      'tool content that is a string',
      [{ role: 'tool', content: 'done' }],
      /messages\[0\]: tool content must be an array/,
    ],
    [
      'a tool result without a call id',
      [{ role: 'tool', content: [{ type: 'tool-result', toolName: 't', output: { type: 'text', value: 'x' } }] }],
      /tool-result part 0 needs a string toolCallId/,
    ],
  ])('rejects %s with CTXKIT_HISTORY_INVALID and the fix', (_name, messages, message) => {
    const error = rejection(messages);
    expect(error.code).toBe(ErrorCodes.HISTORY_INVALID);
    expect(error.category).toBe('user');
    expect(error.message).toMatch(message);
    expect(error.fix).toMatch(/Pass AI SDK ModelMessages/);
  });

  it('does not touch the messages it is given', () => {
    fc.assert(
      fc.property(arbAnyMessages(), (messages) => {
        const before = JSON.stringify(messages);
        const chat: ChatMessage[] = toChatMessages(messages);
        expect(chat.length).toBeGreaterThanOrEqual(0);
        expect(JSON.stringify(messages)).toBe(before);
      }),
      { numRuns: 50 },
    );
  });
});
