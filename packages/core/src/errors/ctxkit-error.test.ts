import { CtxkitError } from './ctxkit-error';
import { ErrorCodes } from './error-codes';
import { PluginNotFoundError } from './plugin-errors';

describe('CtxkitError', () => {
  it('carries code, category, details and the fix in the message', () => {
    const error = new CtxkitError({ code: ErrorCodes.STORE_ERROR, category: 'internal', message: 'Broken.', fix: 'Mend it.' });
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

  it('lists the ids that exist and suggests the closest one', () => {
    const error = new PluginNotFoundError('std-sumarization-strategy', ['std-sliding-window-strategy', 'std-summarization-strategy']);
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
