import type { ChatMessage, ReasoningItem } from '../contracts/chat-message';

/**
 * One of each opaque provider item ctxkit carries on assistant messages, as the providers return
 * them: Anthropic thinking (with its signature), redacted_thinking, compaction (with its signature and
 * tool changes, and a failed one with null content); OpenAI Responses reasoning (with encrypted
 * content) and compaction. Their strings hold what a careless copy breaks: non-ASCII text, a line
 * separator, an emoji, base64 padding and slashes.
 */
export const OPAQUE_ITEMS: ReadonlyArray<{ kind: string; item: ReasoningItem }> = [
  {
    kind: 'anthropic thinking',
    item: {
      provider: 'anthropic',
      data: { type: 'thinking', thinking: 'Prüfe die Buchung \u2028 予約 🎉', signature: 'EqQBCkYIBxgCKkB+/Zx9==' },
    },
  },
  {
    kind: 'anthropic redacted_thinking',
    item: { provider: 'anthropic', data: { type: 'redacted_thinking', data: 'EmwKAhgBEgy3va3pzix/+w==' } },
  },
  {
    kind: 'anthropic compaction',
    item: {
      provider: 'anthropic',
      data: {
        type: 'compaction',
        content: 'Mia booked HAT039 (économie) on 2024-05-01.',
        encrypted_content: 'b3BhcXVl/+Ym9va2luZw==',
        signature: 'EsgCCkYIBxgCKkCompSig/+==',
        tool_changes: [{ type: 'tool_removal', name: 'search_flights' }],
      },
    },
  },
  {
    kind: 'anthropic failed compaction',
    item: { provider: 'anthropic', data: { type: 'compaction', content: null, encrypted_content: null } },
  },
  {
    kind: 'openai reasoning',
    item: {
      provider: 'openai',
      data: {
        type: 'reasoning',
        id: 'rs_68a1',
        summary: [{ type: 'summary_text', text: 'Check the fare rules — 運賃.' }],
        encrypted_content: 'gAAAAABo/+k9Qx==',
      },
    },
  },
  {
    kind: 'openai compaction',
    item: {
      provider: 'openai',
      data: { type: 'compaction', id: 'cmp_68a2', encrypted_content: 'gAAAAABcompact/+Zz==' },
    },
  },
];

/**
 * A short conversation whose assistant messages carry every {@link OPAQUE_ITEMS} kind, with the tool calls they came
 * with.
 */
export function opaqueItemMessages(): ChatMessage[] {
  const call = (id: string) => ({
    id,
    type: 'function' as const,
    function: { name: 'get_reservation', arguments: '{"id":"HAT039"}' },
  });
  const anthropic = OPAQUE_ITEMS.filter((entry) => entry.item.provider === 'anthropic').map((entry) =>
    structuredClone(entry.item),
  );
  const openai = OPAQUE_ITEMS.filter((entry) => entry.item.provider === 'openai').map((entry) =>
    structuredClone(entry.item),
  );
  return [
    { role: 'user', content: 'Where is my booking?' },
    { role: 'assistant', content: null, tool_calls: [call('toolu_1')], reasoning: anthropic },
    { role: 'tool', tool_call_id: 'toolu_1', content: '{"flight":"HAT039"}' },
    { role: 'assistant', content: 'It is HAT039.', tool_calls: [call('call_2')], reasoning: openai },
    { role: 'tool', tool_call_id: 'call_2', content: '{"flight":"HAT039"}' },
  ];
}
