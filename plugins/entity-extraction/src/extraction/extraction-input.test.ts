import type { ChatMessage } from '@ctxkit/core';

import { buildExtractionInput } from './extraction-input';
import { toolCallOfResult } from './tool-call-of-result';

const history: ChatMessage[] = [
  { role: 'user', content: 'I am mia_li_3668.' },
  {
    role: 'assistant',
    content: 'Looking you up.',
    tool_calls: [
      { id: 'same', type: 'function', function: { name: 'get_user_details', arguments: '{"user_id":"mia_li_3668"}' } },
      {
        id: 'same',
        type: 'function',
        function: { name: 'get_reservation_details', arguments: '{"reservation_id":"NO6JO3"}' },
      },
    ],
  },
  { role: 'tool', tool_call_id: 'same', content: '{"dob":"1990-04-05"}' },
  { role: 'tool', tool_call_id: 'same', content: '{"reservation_id":"NO6JO3"}' },
  { role: 'assistant', content: 'Found it.' },
];

describe('buildExtractionInput', () => {
  describe('#build', () => {
    it('stops at the newest user message for a user-message extractor', () => {
      const input = buildExtractionInput(history, -1, 'user-messages')!;
      expect(input.sourceMessageIndex).toBe(0);
      expect(input.userMessages.map((m) => m.index)).toEqual([0]);
      expect(input.toolResults).toEqual([]);
      expect(buildExtractionInput(history, 0, 'user-messages')).toBeNull();
    });

    it('reads tool results as they arrive, named by the call they answer, for an extractor that wants them', () => {
      const input = buildExtractionInput(history, 0, 'user-messages-and-tool-results')!;
      expect(input.sourceMessageIndex).toBe(3);
      expect(input.userMessages).toEqual([]);
      expect(input.toolResults.map((r) => [r.index, r.toolName])).toEqual([
        [2, 'get_user_details'],
        [3, 'get_reservation_details'],
      ]);
      expect(input.context.map((s) => s.kind)).toEqual([
        'assistant-text',
        'tool-call-arguments',
        'tool-call-arguments',
        'tool-output',
        'tool-output',
      ]);
      expect(input.lastAssistantText).toBe('Looking you up.');
      // A new assistant message alone does not start an extraction.
      expect(buildExtractionInput(history, 3, 'user-messages-and-tool-results')).toBeNull();
    });

    it('pairs a result with its call by position when ids repeat', () => {
      expect(toolCallOfResult(history, 3)!.function.name).toBe('get_reservation_details');
      expect(toolCallOfResult(history, 0)).toBeNull();
    });
  });
});
