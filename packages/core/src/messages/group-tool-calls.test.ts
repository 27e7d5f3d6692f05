import type { ChatMessage } from '../contracts/chat-message';
import { findPayloadProblems } from './find-payload-problems';
import { groupEndingAt, groupToolCalls } from './group-tool-calls';

const call = (id: string, name = 'get_user_details') => ({
  id,
  type: 'function' as const,
  function: { name, arguments: '{}' },
});

describe('groupToolCalls', () => {
  it('keeps an assistant tool_calls message with all its results as one unit', () => {
    const history: ChatMessage[] = [
      { role: 'user', content: 'hi' },
      { role: 'assistant', content: null, tool_calls: [call('a'), call('b')] },
      { role: 'tool', tool_call_id: 'b', content: 'B' },
      { role: 'tool', tool_call_id: 'a', content: 'A' },
      { role: 'assistant', content: 'done' },
    ];
    expect(groupToolCalls(history).map((g) => [g.start, g.end, g.kind])).toEqual([
      [0, 1, 'user'],
      [1, 4, 'tool-exchange'],
      [4, 5, 'assistant'],
    ]);
  });

  it('pairs reused call ids by position, as tau-bench conversations need', () => {
    const history: ChatMessage[] = [
      { role: 'user', content: 'hi' },
      { role: 'assistant', content: null, tool_calls: [call('same')] },
      { role: 'tool', tool_call_id: 'same', content: 'first' },
      { role: 'assistant', content: null, tool_calls: [call('same')] },
      { role: 'tool', tool_call_id: 'same', content: 'second' },
    ];
    expect(groupToolCalls(history).map((g) => g.kind)).toEqual(['user', 'tool-exchange', 'tool-exchange']);
    expect(groupEndingAt(history, 5)).toEqual({ start: 3, end: 5, kind: 'tool-exchange' });
    expect(groupEndingAt(history, 3)).toEqual({ start: 1, end: 3, kind: 'tool-exchange' });
  });

  it('marks a trailing call without results as incomplete and a stray result as orphan', () => {
    const history: ChatMessage[] = [
      { role: 'tool', tool_call_id: 'x', content: 'stray' },
      { role: 'user', content: 'go' },
      { role: 'assistant', content: null, tool_calls: [call('f', 'finish')] },
    ];
    const groups = groupToolCalls(history);
    expect(groups[0]!.kind).toBe('orphan-tool');
    expect(groups[2]).toEqual({ start: 2, end: 3, kind: 'incomplete-tool-exchange', missingCallIds: ['f'] });
    expect(groupEndingAt(history, 3).kind).toBe('incomplete-tool-exchange');
    expect(
      findPayloadProblems(history)
        .map((p) => p.problem)
        .sort(),
    ).toEqual(['leading-tool-message', 'missing-tool-result', 'orphan-tool-result']);
  });

  it('treats a result answering a call of an older assistant message as an orphan', () => {
    const history: ChatMessage[] = [
      { role: 'user', content: 'go' },
      { role: 'assistant', content: null, tool_calls: [call('a')] },
      { role: 'tool', tool_call_id: 'a', content: 'A' },
      { role: 'tool', tool_call_id: 'a', content: 'again' },
    ];
    expect(groupEndingAt(history, 4).kind).toBe('orphan-tool');
    expect(findPayloadProblems(history).map((p) => p.problem)).toEqual(['orphan-tool-result']);
  });
});
