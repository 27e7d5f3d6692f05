import type { ChatMessage } from '@ctxkit/core';

import { replayPoints } from './replay-points';

describe('replayPoints', () => {
  it('composes before each assistant message and completes turns before the next user message', () => {
    const messages: ChatMessage[] = [
      { role: 'system', content: 's' },
      { role: 'user', content: 'u1' },
      {
        role: 'assistant',
        content: null,
        tool_calls: [{ id: 'a', type: 'function', function: { name: 't', arguments: '{}' } }],
      },
      { role: 'tool', tool_call_id: 'a', content: 'r' },
      { role: 'assistant', content: 'answer' },
      { role: 'user', content: 'u2' },
    ];
    expect(replayPoints(messages)).toEqual([
      { kind: 'compose', end: 2 },
      { kind: 'compose', end: 4 },
      { kind: 'turn-complete', end: 5 },
      { kind: 'compose', end: 6 },
    ]);
  });

  it('ends a record that stops on an assistant message with a turn end', () => {
    const messages: ChatMessage[] = [
      { role: 'system', content: 's' },
      { role: 'user', content: 'u1' },
      { role: 'assistant', content: 'a' },
    ];
    expect(replayPoints(messages)).toEqual([
      { kind: 'compose', end: 2 },
      { kind: 'turn-complete', end: 3 },
    ]);
  });
});
