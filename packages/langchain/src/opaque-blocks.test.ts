import { AIMessage, type BaseMessage, HumanMessage, ToolMessage } from '@langchain/core/messages';

import { fromChatMessage, fromChatMessages, type LangChainChatMessage, toChatMessages } from './index';

/**
 * Opaque provider content as LangChain carries it in an AI message's content blocks: Anthropic
 * compaction, thinking (signature) and redacted thinking (data) blocks; an OpenAI Responses reasoning
 * block with its encrypted content and a compaction item.
 */
const anthropicBlocks = [
  {
    type: 'compaction',
    content: 'Mia booked HAT039 (économie).',
    encrypted_content: 'b3BhcXVl/+==',
    signature: 'EsgCCompSig/+==',
  },
  { type: 'thinking', thinking: 'Prüfe \u2028 予約 🎉', signature: 'EqQBCkYI+/==' },
  { type: 'redacted_thinking', data: 'EmwKAhgB/+w==' },
];
const openaiBlocks = [
  { type: 'compaction', id: 'cmp_68a2', encrypted_content: 'gAAAAABcompact/+Zz==' },
  {
    type: 'reasoning',
    id: 'rs_68a1',
    summary: [{ type: 'summary_text', text: 'Check the fare — 運賃.' }],
    encrypted_content: 'gAAAAABo/+k9Qx==',
  },
];

function conversation(): BaseMessage[] {
  return [
    new HumanMessage({ content: 'Where is my booking?' }),
    new AIMessage({
      content: [...structuredClone(anthropicBlocks), { type: 'text', text: 'Let me look.' }],
      tool_calls: [{ id: 'toolu_1', name: 'get_reservation', args: { id: 'HAT039' }, type: 'tool_call' }],
    }),
    new ToolMessage({ content: 'HAT039', tool_call_id: 'toolu_1' }),
    new AIMessage({
      content: [...structuredClone(openaiBlocks), { type: 'text', text: 'It is HAT039.' }],
      response_metadata: { model_provider: 'openai' },
    }),
  ];
}

const contentOf = (message: BaseMessage | undefined) => JSON.stringify(message?.content);

describe('opaque provider blocks through the LangChain adapter', () => {
  it('carries each block on its message as an item of the provider that made it', () => {
    const chat = toChatMessages(conversation());
    const items = chat.flatMap((message) => (message.role === 'assistant' ? (message.reasoning ?? []) : []));
    expect(items.map((item) => [item.provider, item.data.type])).toEqual([
      ['anthropic', 'compaction'],
      ['anthropic', 'thinking'],
      ['anthropic', 'redacted_thinking'],
      ['openai', 'compaction'],
      ['openai', 'reasoning'],
    ]);
  });

  it('gives every block back byte for byte when the messages come back unchanged', () => {
    const messages = conversation();
    const back = fromChatMessages(toChatMessages(messages));
    back.forEach((message, index) => expect(contentOf(message)).toBe(contentOf(messages[index])));
  });

  it('gives every block back byte for byte after the ctxkit messages were stored as JSON and read back', () => {
    const messages = conversation();
    const stored = JSON.parse(JSON.stringify(toChatMessages(messages))) as LangChainChatMessage[];
    const back = fromChatMessages(stored);
    back.forEach((message, index) => expect(contentOf(message)).toBe(contentOf(messages[index])));
  });

  it('keeps the blocks first and unchanged when a strategy changes the message text', () => {
    const [, anthropic, , openai] = toChatMessages(conversation());
    const changedAnthropic = fromChatMessage({ ...anthropic!, content: 'Looking.' } as LangChainChatMessage, 1);
    expect(JSON.stringify(changedAnthropic.content)).toBe(
      JSON.stringify([...anthropicBlocks, { type: 'text', text: 'Looking.' }]),
    );
    const stripped = { ...openai!, content: 'HAT039.' } as LangChainChatMessage;
    delete (stripped as { langchain?: unknown }).langchain;
    expect(JSON.stringify(fromChatMessage(stripped, 3).content)).toBe(
      JSON.stringify([...openaiBlocks, { type: 'text', text: 'HAT039.' }]),
    );
  });

  it('keeps a Gemini thought signature kept in additional_kwargs when a strategy changes the message', () => {
    const gemini = new AIMessage({
      content: [{ type: 'text', text: 'Let me look.' }],
      additional_kwargs: {
        originalTextContentBlock: { type: 'text', text: 'Let me look.', thoughtSignature: 'CiQBcsjafTextSig/+==' },
      },
      tool_calls: [{ id: 'call_1', name: 'get_reservation', args: { id: 'HAT039' }, type: 'tool_call' }],
      response_metadata: { model_provider: 'google-genai' },
    });
    const [chat] = toChatMessages([gemini]);
    const back = fromChatMessage({ ...chat!, content: 'Looking.' } as LangChainChatMessage);
    expect(JSON.stringify(back.additional_kwargs)).toBe(JSON.stringify(gemini.additional_kwargs));
  });
});
