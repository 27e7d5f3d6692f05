import { readNpmViewAnswer } from './published-version';

const notFound = JSON.stringify({
  error: { code: 'E404', summary: 'Not Found - GET https://registry.npmjs.org/@ctxkit%2fcore', detail: '...' },
});

describe('readNpmViewAnswer', () => {
  it('reads one matching version', () => {
    expect(readNpmViewAnswer(0, '"0.1.3"\n', '')).toEqual({ published: true, version: '0.1.3' });
  });

  it('takes the newest of several matching versions', () => {
    expect(readNpmViewAnswer(0, JSON.stringify(['0.1.0', '0.1.1', '0.1.2']), '')).toEqual({
      published: true,
      version: '0.1.2',
    });
  });

  it('reads an E404 as not published, with npm summary naming the registry', () => {
    expect(readNpmViewAnswer(1, notFound, 'npm error code E404')).toEqual({
      published: false,
      summary: 'Not Found - GET https://registry.npmjs.org/@ctxkit%2fcore',
    });
  });

  it('reads an empty answer as no version in the range', () => {
    expect(readNpmViewAnswer(0, '', '').published).toBe(false);
  });

  it('reads any other failure as unknown, with its reason', () => {
    const offline = readNpmViewAnswer(
      1,
      JSON.stringify({ error: { code: 'ENOTFOUND', summary: 'request to https://registry.npmjs.org failed' } }),
      '',
    );
    expect(offline).toEqual({ published: undefined, reason: 'request to https://registry.npmjs.org failed' });
    expect(readNpmViewAnswer(1, 'not json', 'npm warn x\nnpm error network timeout\n')).toEqual({
      published: undefined,
      reason: 'npm error network timeout',
    });
    expect(readNpmViewAnswer(null, '', '')).toEqual({ published: undefined, reason: 'npm view exited with null' });
  });
});
