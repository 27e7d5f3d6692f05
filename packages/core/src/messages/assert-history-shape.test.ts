import { CtxkitError } from '../errors/ctxkit-error';
import { assertHistoryShape } from './assert-history-shape';

describe('assertHistoryShape', () => {
  it('accepts the four roles of the canonical shape', () => {
    expect(() =>
      assertHistoryShape([
        { role: 'system', content: 's' },
        { role: 'user', content: [{ type: 'text', text: 'u' }] },
        { role: 'assistant', content: null, tool_calls: [] },
        { role: 'tool', tool_call_id: 'a', content: 'r' },
      ]),
    ).not.toThrow();
  });

  it.each([
    [[{ role: 'function', content: 'x' }], 'unknown role "function"'],
    [[null], 'not a message object'],
    [[{ role: 'tool', content: 'x' }], 'tool_call_id'],
    [[{ role: 'user', content: 42 }], 'content must be'],
    [[{ role: 'user', content: 'x', tool_calls: [] }], 'tool_calls must be'],
  ])('rejects %j with a typed error', (history, text) => {
    let caught: unknown;
    try {
      assertHistoryShape(history);
    } catch (error) {
      caught = error;
    }
    expect(CtxkitError.isInstance(caught) && caught.code).toBe('CTXKIT_HISTORY_INVALID');
    expect((caught as Error).message).toContain(text);
  });

  it('checks only from the given index', () => {
    expect(() => assertHistoryShape([{ role: 'bogus' }, { role: 'user', content: 'ok' }], 1)).not.toThrow();
  });
});
