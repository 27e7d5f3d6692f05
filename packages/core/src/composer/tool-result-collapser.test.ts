import type { ChatMessage } from '../contracts/chat-message';
import { collapsedInWindow } from './tool-result-collapser';

describe('collapsedInWindow', () => {
  const history: ChatMessage[] = Array.from({ length: 10 }, (_, index) =>
    index % 2 === 0
      ? { role: 'assistant', content: null, tool_calls: [] }
      : { role: 'tool', tool_call_id: `call_${index}`, content: `result ${index}` },
  );
  const collapsedAt = [1, 3, 5, 7];

  it('counts the collapsed results the window holds, by their place in its kept ranges', () => {
    // A head [0, 2) and a tail [6, 10): the results at 3 and 5 were dropped.
    const kept = [
      { from: 0, to: 2 },
      { from: 6, to: 10 },
    ];
    const window = [...history.slice(0, 2), ...history.slice(6)];
    expect(collapsedInWindow(collapsedAt, history, window, kept)).toEqual([1, 7]);
  });

  it('leaves out a result the window holds as another object (a truncated copy)', () => {
    const window = history.slice(4);
    window[3] = { role: 'tool', tool_call_id: 'call_7', content: 'result 7 [truncated]' };
    expect(collapsedInWindow(collapsedAt, history, window, [{ from: 4, to: 10 }])).toEqual([5]);
  });

  it('finds them by identity when the window is not one for one with its ranges', () => {
    const window = [history[5]!, history[7]!];
    expect(collapsedInWindow(collapsedAt, history, window, [{ from: 4, to: 10 }])).toEqual([5, 7]);
  });
});
