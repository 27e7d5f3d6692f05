import type { AssistantMessage } from '@ctxkit/core';
import type { ModelMessage } from 'ai';

import { toChatMessages } from './to-chat-messages';
import { toModelMessages } from './to-model-messages';

/**
 * Opaque provider content as the AI SDK carries it on assistant parts: Anthropic thinking (signature)
 * and redacted thinking (data) on reasoning parts, OpenAI reasoning with its item id and encrypted
 * content, compaction blocks as custom parts (`kind: '<provider>.compaction'`, the AI SDK's slot for
 * provider-specific content), and Gemini thought signatures on the text and tool-call parts they
 * belong to.
 */
const conversation: ModelMessage[] = [
  { role: 'user', content: 'Where is my booking?' },
  {
    role: 'assistant',
    content: [
      {
        type: 'custom',
        kind: 'anthropic.compaction',
        providerOptions: {
          anthropic: {
            content: 'Mia booked HAT039 (économie).',
            encryptedContent: 'b3BhcXVl/+==',
            signature: 'EsgCCompSig/+==',
          },
        },
      },
      {
        type: 'reasoning',
        text: 'Prüfe \u2028 予約 🎉',
        providerOptions: { anthropic: { signature: 'EqQBCkYI+/==' } },
      },
      { type: 'reasoning', text: '', providerOptions: { anthropic: { redactedData: 'EmwKAhgB/+w==' } } },
      {
        type: 'reasoning',
        text: 'Check the fare — 運賃.',
        providerOptions: { openai: { itemId: 'rs_68a1', reasoningEncryptedContent: 'gAAAAABo/+k9Qx==' } },
      },
      {
        type: 'custom',
        kind: 'openai.compaction',
        providerOptions: { openai: { itemId: 'cmp_68a2', encryptedContent: 'gAAAAABcompact/+Zz==' } },
      },
      { type: 'text', text: 'Let me look.', providerOptions: { google: { thoughtSignature: 'CiQBcsjafTextSig/+==' } } },
      {
        type: 'tool-call',
        toolCallId: 'call_1',
        toolName: 'get_reservation',
        input: { id: 'HAT039' },
        providerOptions: { google: { thoughtSignature: 'CiQBcsjafCallSig/+==' } },
      },
    ],
  },
  {
    role: 'tool',
    content: [
      {
        type: 'tool-result',
        toolCallId: 'call_1',
        toolName: 'get_reservation',
        output: { type: 'text', value: 'HAT039, 2024-05-01' },
      },
    ],
  },
];

const jsonClone = <T>(value: T): T => JSON.parse(JSON.stringify(value)) as T;

describe('opaque provider parts through the AI SDK adapter', () => {
  it('gives every part back byte for byte when the messages come back unchanged', () => {
    const back = toModelMessages(toChatMessages(conversation));
    back.forEach((message, index) => expect(message).toBe(conversation[index]));
  });

  it('gives every part back byte for byte after the messages were stored as JSON and read back', () => {
    const stored = jsonClone(toChatMessages(conversation));
    expect(JSON.stringify(toModelMessages(stored))).toBe(JSON.stringify(conversation));
  });

  it(
    'keeps the opaque parts in place and the thought signatures on their parts when a strategy changes the ' +
      'message',
    () => {
      const changed = toChatMessages(conversation).map((message) =>
        message.role === 'assistant' ? ({ ...message, content: 'Looking it up.' } as AssistantMessage) : message,
      );
      const [, assistant] = toModelMessages(changed);
      const parts = assistant!.content as Exclude<ModelMessage['content'], string>;
      const original = conversation[1]!.content as typeof parts;
      expect(JSON.stringify(parts.slice(0, 5))).toBe(JSON.stringify(original.slice(0, 5)));
      expect(parts[5]).toEqual({
        type: 'text',
        text: 'Looking it up.',
        providerOptions: { google: { thoughtSignature: 'CiQBcsjafTextSig/+==' } },
      });
      expect(JSON.stringify(parts[6])).toBe(JSON.stringify(original[6]));
    },
  );
});
