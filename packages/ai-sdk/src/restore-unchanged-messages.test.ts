import type { ChatMessage } from '@ctxkit/core';
import type { ModelMessage } from 'ai';
import fc from 'fast-check';

import { restoreUnchangedMessages } from './restore-unchanged-messages';
import { arbAnyMessages } from './testing/model-message-arbitraries';
import { toChatMessages } from './to-chat-messages';
import { toModelMessages } from './to-model-messages';

describe('restoreUnchangedMessages', () => {
  it('turns copies of kept messages back into converted messages that read the same, in order', () => {
    fc.assert(
      fc.property(arbAnyMessages(), fc.array(fc.boolean(), { minLength: 12, maxLength: 12 }), (messages, keep) => {
        const history = toChatMessages(messages);
        const kept = history.filter((_, index) => keep[index % keep.length]);
        const restored = restoreUnchangedMessages(JSON.parse(JSON.stringify(kept)) as ChatMessage[], history);
        expect(restored).toEqual(kept);
        const positions = restored.map((message) => history.indexOf(message));
        expect(
          positions.every((position, index) => position >= 0 && (index === 0 || position > positions[index - 1]!)),
        ).toBe(true);
      }),
      { numRuns: 100 },
    );
  });

  it('matches a kept window of the newest messages exactly, even where older messages read the same', () => {
    fc.assert(
      fc.property(arbAnyMessages(), fc.nat(), (messages, cut) => {
        const history = toChatMessages(messages);
        const window = history.slice(history.length === 0 ? 0 : cut % history.length);
        restoreUnchangedMessages(JSON.parse(JSON.stringify(window)) as ChatMessage[], history).forEach(
          (message, index) => expect(message).toBe(window[index]),
        );
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
    const sent = restoreUnchangedMessages(
      [summary, { role: 'user', content: 'yes' }, changed, { role: 'user', content: 'yes' }],
      history,
    );
    expect(sent[0]).toBe(summary);
    expect(sent[2]).toBe(changed);
    expect(toModelMessages([sent[1]!, sent[3]!])).toEqual([messages[0], messages[2]]);
  });
});
