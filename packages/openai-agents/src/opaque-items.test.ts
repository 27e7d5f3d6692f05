import type { AgentInputItem } from '@openai/agents';

import { type OpenAIAgentsChatMessage, toAgentInputItems, toChatMessages } from './index';

/**
 * Opaque OpenAI items as an Agents SDK session holds them: a compaction item and a reasoning item
 * with its encrypted content, each in the model step it came with.
 */
const items = [
  { type: 'message', role: 'user', content: 'Where is my booking?' },
  { type: 'compaction', id: 'cmp_68a2', encrypted_content: 'gAAAAABcompact/+Zz==' },
  {
    type: 'reasoning',
    id: 'rs_68a1',
    content: [{ type: 'input_text', text: 'Check the fare — 運賃 \u2028 🎉' }],
    providerData: { encrypted_content: 'gAAAAABo/+k9Qx==' },
  },
  {
    type: 'function_call',
    callId: 'call_1',
    name: 'get_reservation',
    arguments: '{"id":"HAT039"}',
    status: 'completed',
  },
  {
    type: 'function_call_result',
    callId: 'call_1',
    name: 'get_reservation',
    status: 'completed',
    output: { type: 'text', text: 'HAT039' },
  },
] as unknown as AgentInputItem[];

/**
 * The messages without the items they keep, as a strategy's copy or a store without the adapter's fields gives them.
 */
function withoutOrigin(messages: readonly OpenAIAgentsChatMessage[]): OpenAIAgentsChatMessage[] {
  return messages.map(({ openaiAgents: _items, ...message }) => message as OpenAIAgentsChatMessage);
}

describe('opaque items through the Agents SDK adapter', () => {
  it('carries compaction and encrypted reasoning items on the step they came with, as OpenAI items', () => {
    const assistant = toChatMessages(items).find((message) => message.role === 'assistant');
    expect(
      assistant?.role === 'assistant' && assistant.reasoning?.map((item) => [item.provider, item.data.type]),
    ).toEqual([
      ['openai', 'compaction'],
      ['openai', 'reasoning'],
    ]);
  });

  it('gives every item back byte for byte, unchanged, stored as JSON, or rebuilt from the ctxkit fields', () => {
    const messages = toChatMessages(items);
    expect(JSON.stringify(toAgentInputItems(messages))).toBe(JSON.stringify(items));
    const stored = JSON.parse(JSON.stringify(messages)) as OpenAIAgentsChatMessage[];
    expect(JSON.stringify(toAgentInputItems(stored))).toBe(JSON.stringify(items));
    const rebuilt = toAgentInputItems(withoutOrigin(JSON.parse(JSON.stringify(messages)) as OpenAIAgentsChatMessage[]));
    expect(JSON.stringify(rebuilt.slice(1, 3))).toBe(JSON.stringify(items.slice(1, 3)));
  });
});
