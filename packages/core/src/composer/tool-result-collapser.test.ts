import fc from 'fast-check';

import type { ChatMessage } from '../contracts/chat-message';
import { collapsedInWindow, ToolResultCollapser } from './tool-result-collapser';

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

describe('ToolResultCollapser', () => {
  const call = (id: string, path: string): ChatMessage => ({
    role: 'assistant',
    content: null,
    tool_calls: [{ id, type: 'function', function: { name: 'read_file', arguments: JSON.stringify({ path }) } }],
  });
  const result = (id: string, text: string): ChatMessage => ({ role: 'tool', tool_call_id: id, content: text });
  const long = (label: string): string => `${label}\n${'line of the file\n'.repeat(40)}`;

  it('gives what a new collapser gives, as the history grows, shrinks and has results replaced', () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.oneof(
            fc.constant({ kind: 'grow' as const }),
            fc.nat(40).map((at) => ({ kind: 'replace' as const, at })),
            fc.nat(40).map((length) => ({ kind: 'shrink' as const, length })),
          ),
          { maxLength: 12 },
        ),
        (steps) => {
          const kept = new ToolResultCollapser();
          let history: ChatMessage[] = [{ role: 'user', content: 'go' }];
          let next = 0;
          for (const step of steps) {
            if (step.kind === 'grow') {
              const id = `call_${next++}`;
              history = [...history, call(id, `f${next}.ts`), result(id, long(`f${next}`))];
            } else if (step.kind === 'replace') {
              const at = step.at % history.length;
              const message = history[at]!;
              if (message.role === 'tool')
                history = history.map((item, index) => (index === at ? result(message.tool_call_id, 'short') : item));
            } else history = history.slice(0, Math.max(1, step.length % (history.length + 1)));
            const fresh = new ToolResultCollapser().view(history);
            const view = kept.view(history);
            expect(view.collapsedAt).toEqual(fresh.collapsedAt);
            expect(view.history).toEqual(fresh.history);
            // A result collapsed before is the same object again.
            expect(kept.view(history).history).toEqual(view.history);
            for (const index of view.collapsedAt) expect(kept.view(history).history[index]).toBe(view.history[index]);
          }
        },
      ),
      { numRuns: 200 },
    );
  });
});
