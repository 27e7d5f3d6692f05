import { GrowingHistoryCheck } from './growing-history-check';

const invalid = expect.objectContaining({ code: 'CTXKIT_HISTORY_INVALID' });

describe('GrowingHistoryCheck', () => {
  it('checks only what a grown history added, the whole of any other, and a failed one again', () => {
    const check = new GrowingHistoryCheck();
    const history: unknown[] = [
      { role: 'user', content: 'hello' },
      { role: 'assistant', content: 'hi' },
    ];
    check.checkHistoryShape(history);
    // Grown (the same first message, and the same one where it ended): only the new message is checked.
    const grown = [...history, { role: 'user', content: 'next' }];
    expect(() => check.checkHistoryShape(grown)).not.toThrow();
    const bad = [...grown, { role: 'narrator' }];
    expect(() => check.checkHistoryShape(bad)).toThrow(invalid);
    expect(() => check.checkHistoryShape(bad)).toThrow(invalid);
    // Another history: checked whole.
    expect(() => check.checkHistoryShape([{ role: 'narrator' }, ...grown.slice(1)])).toThrow(invalid);
    expect(() => check.checkHistoryShape('not an array' as unknown as unknown[])).toThrow(invalid);
  });
});
