import { providerCompactionItem, providerCompactionText } from './provider-compaction-item';

describe('providerCompactionItem', () => {
  const anthropic = {
    provider: 'anthropic',
    data: { type: 'compaction', content: 'The user booked 8JX2.', signature: 'sig-1' },
  };
  const openai = { provider: 'openai', data: { type: 'compaction', id: 'cmp_1', encrypted_content: 'gAAAA' } };

  it(
    "finds the compaction item of either provider among the answer's opaque items, and the readable text only of " +
      "Anthropic's",
    () => {
      expect(
        providerCompactionItem({
          role: 'assistant',
          content: null,
          reasoning: [{ provider: 'anthropic', data: { type: 'thinking', thinking: 'x', signature: 's' } }, anthropic],
        }),
      ).toBe(anthropic);
      expect(providerCompactionItem({ role: 'assistant', content: null, reasoning: [openai] })).toBe(openai);
      expect(providerCompactionText(anthropic)).toBe('The user booked 8JX2.');
      expect(providerCompactionText(openai)).toBeUndefined();
    },
  );

  it('finds none in a text answer, a failed compaction (null content) or an item without its encrypted content', () => {
    expect(providerCompactionItem({ role: 'assistant', content: '<summary>…</summary>' })).toBeUndefined();
    expect(
      providerCompactionItem({
        role: 'assistant',
        content: null,
        reasoning: [{ provider: 'anthropic', data: { type: 'compaction', content: null } }],
      }),
    ).toBeUndefined();
    expect(
      providerCompactionItem({
        role: 'assistant',
        content: null,
        reasoning: [{ provider: 'openai', data: { type: 'compaction', encrypted_content: '' } }],
      }),
    ).toBeUndefined();
  });
});
