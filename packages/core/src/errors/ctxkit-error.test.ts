import { BudgetExceededError } from './budget-exceeded-error';
import { CtxkitError } from './ctxkit-error';
import { DisposedError } from './disposed-error';
import { ErrorCodes } from './error-codes';
import { PluginNotFoundError } from './plugin-not-found-error';

describe('CtxkitError', () => {
  it('carries code, category, details and the fix in the message', () => {
    const error = new CtxkitError({
      code: ErrorCodes.STORE_ERROR,
      category: 'internal',
      message: 'Broken.',
      fix: 'Mend it.',
    });
    expect(error.code).toBe('CTXKIT_STORE_ERROR');
    expect(error.message).toBe('Broken. Fix: Mend it.');
    expect(error.name).toBe('CtxkitError');
    expect(CtxkitError.isInstance(error)).toBe(true);
    expect(CtxkitError.isInstance(new Error('x'))).toBe(false);
  });

  it('is recognised across copies through its symbol marker', () => {
    const foreign = Object.assign(new Error('from another copy'), { [Symbol.for('ctxkit.error')]: true });
    expect(CtxkitError.isInstance(foreign)).toBe(true);
  });

  it('recognises each class exactly, also across copies of core', () => {
    const budget = new BudgetExceededError('std-x', { available: 5, required: 17, sections: { system: 17 } });
    const disposed = new DisposedError('agent');
    expect(BudgetExceededError.isInstance(budget)).toBe(true);
    expect(CtxkitError.isInstance(budget)).toBe(true);
    expect(BudgetExceededError.isInstance(disposed)).toBe(false);
    expect(DisposedError.isInstance(budget)).toBe(false);
    expect(BudgetExceededError.isInstance(new Error('x'))).toBe(false);
    // An error from another copy of core carries the same marker, not the same class.
    const copy = Object.assign(new Error('copy'), {
      [Symbol.for('ctxkit.error')]: ['BudgetExceededError', 'CtxkitError'],
    });
    expect(BudgetExceededError.isInstance(copy)).toBe(true);
    expect(DisposedError.isInstance(copy)).toBe(false);
    expect(CtxkitError.isInstance(copy)).toBe(true);
    // Older copies marked every ctxkit error with `true`: a ctxkit error, class unknown.
    const older = Object.assign(new Error('older'), { [Symbol.for('ctxkit.error')]: true });
    expect(BudgetExceededError.isInstance(older)).toBe(false);
  });

  it('lists the ids that exist and suggests the closest one', () => {
    const error = new PluginNotFoundError('std-sumarization-strategy', [
      'std-sliding-window-strategy',
      'std-summarization-strategy',
    ]);
    expect(error.name).toBe('PluginNotFoundError');
    expect(error.message).toContain('std-sliding-window-strategy, std-summarization-strategy');
    expect(error.message).toContain('Did you mean "std-summarization-strategy"?');
    expect(error.details).toMatchObject({ pointer: '/contextStrategy/pluginId' });
  });
});

describe('ErrorCodes', () => {
  it('is sorted and every code is prefixed', () => {
    const keys = Object.keys(ErrorCodes);
    expect(keys).toEqual([...keys].sort());
    for (const code of Object.values(ErrorCodes)) expect(code.startsWith('CTXKIT_')).toBe(true);
  });
});
