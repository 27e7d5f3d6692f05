import type { ChatMessage } from '@ctxkit/core';

import { call } from '../test-support';
import { toolNameAt } from './micro-compact';

describe('toolNameAt', () => {
  const result = (id: string): ChatMessage => ({ role: 'tool', tool_call_id: id, content: 'out' });

  it('pairs results with the calls of the assistant message before their run, by position for reused ids', () => {
    const messages: ChatMessage[] = [
      { role: 'user', content: 'go' },
      {
        role: 'assistant',
        content: null,
        tool_calls: [call('a', 'read_file'), call('a', 'run_command'), call('b', 'grep')],
      },
      result('a'),
      result('b'),
      result('a'),
      result('z'),
    ];
    expect([2, 3, 4, 5].map((index) => toolNameAt(messages, index))).toEqual([
      'read_file',
      'grep',
      'run_command',
      'unknown',
    ]);
  });

  it(
    'names nothing for a result without a call before its run, or whose run reaches the first position of the ' +
      'view',
    () => {
      const messages: ChatMessage[] = [
        { role: 'assistant', content: null, tool_calls: [call('a', 'read_file')] },
        result('a'),
        { role: 'user', content: 'x' },
        result('a'),
      ];
      expect(toolNameAt(messages, 1)).toBe('read_file');
      expect(toolNameAt(messages, 1, 1)).toBe('unknown');
      expect(toolNameAt(messages, 3)).toBe('unknown');
    },
  );
});
