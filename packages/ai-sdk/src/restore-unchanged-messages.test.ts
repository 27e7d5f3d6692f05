import type { ChatMessage } from '@ctxkit/core';
import type { ModelMessage } from 'ai';
import fc from 'fast-check';
import { restoreUnchangedMessages } from './restore-unchanged-messages';
import { arbAnyMessages } from './testing/model-message-arbitraries';
import { toChatMessages } from './to-chat-messages';
import { toModelMessages } from './to-model-messages';

describe('restoreUnchangedMessages', () => {
  it('turns copies of kept messages back into the converted ones, so that they convert back exactly', () => {
    fc.assert(
      fc.property(arbAnyMessages(), fc.array(fc.boolean(), { minLength: 12, maxLength: 12 }), (messages, keep) => {
        const history = toChatMessages(messages);
        const kept = history.filter((_, index) => keep[index % keep.length]);
        const copies = JSON.parse(JSON.stringify(kept)) as ChatMessage[];
        expect(restoreUnchangedMessages(copies, history)).toEqual(kept);
        restoreUnchangedMessages(copies, history).forEach((message, index) => expect(message).toBe(kept[index]));
      }),
      { numRuns: 100 },
    );
  });

  it('matches equal messages in order, and leaves changed and new messages alone', () => {
    const messages: ModelMessage[] = [
      { role: 'user', content: 'yes', providerOptions: { openai: { itemId: 'first' } } },
      { role: 'assistant', content: 'Booked.' },
      { role: 'user', content: 'yes', providerOptions: { openai: { itemId: 'second' } } },
    ];
    const history = toChatMessages(messages);
    const summary: ChatMessage = { role: 'user', content: 'Summary of earlier turns.' };
    const changed: ChatMessage = { role: 'assistant', content: 'Booked (shortened).' };
    const sent = restoreUnchangedMessages([summary, { role: 'user', content: 'yes' }, changed, { role: 'user', content: 'yes' }], history);
    expect(sent[0]).toBe(summary);
    expect(sent[2]).toBe(changed);
    expect(toModelMessages([sent[1]!, sent[3]!])).toEqual([messages[0], messages[2]]);
  });
});
