import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

import { CtxkitError } from '@ctxkit/core';

import { findCoreTarball } from './core-tarball';

describe('findCoreTarball', () => {
  let tmp: string;
  beforeEach(() => {
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'ctxkit-tarballs-'));
  });
  afterEach(() => fs.rmSync(tmp, { recursive: true, force: true }));

  const touch = (...names: string[]) => names.forEach((name) => fs.writeFileSync(path.join(tmp, name), ''));

  function thrown(run: () => unknown): CtxkitError {
    try {
      run();
    } catch (error) {
      if (CtxkitError.isInstance(error)) return error;
      throw error;
    }
    throw new Error('expected a typed error');
  }

  it('finds the core tarball among the others, with its version', () => {
    touch(
      'ctxkit-cli-0.1.0.tgz',
      'ctxkit-core-0.1.0.tgz',
      'ctxkit-strategy-sliding-window-0.1.0.tgz',
      'ctxkit-core-extra-0.1.0.tgz',
    );
    expect(findCoreTarball(tmp, '9.9.9')).toEqual({ file: path.join(tmp, 'ctxkit-core-0.1.0.tgz'), version: '0.1.0' });
  });

  it('reads prerelease versions', () => {
    touch('ctxkit-core-1.2.0-beta.1.tgz');
    expect(findCoreTarball(tmp, '1.2.0').version).toBe('1.2.0-beta.1');
  });

  it('takes the preferred version among several', () => {
    touch('ctxkit-core-0.1.0.tgz', 'ctxkit-core-0.2.0.tgz');
    expect(findCoreTarball(tmp, '0.2.0').file).toBe(path.join(tmp, 'ctxkit-core-0.2.0.tgz'));
  });

  it('refuses several versions when none is the preferred one, naming them', () => {
    touch('ctxkit-core-0.1.0.tgz', 'ctxkit-core-0.2.0.tgz');
    const error = thrown(() => findCoreTarball(tmp, '0.3.0'));
    expect(error.code).toBe('CTXKIT_MANIFEST_NOT_FOUND');
    expect(error.message).toContain('ctxkit-core-0.1.0.tgz, ctxkit-core-0.2.0.tgz');
  });

  it('says how to write the tarballs when there is none', () => {
    touch('ctxkit-cli-0.1.0.tgz');
    const error = thrown(() => findCoreTarball(tmp, '0.1.0'));
    expect(error.code).toBe('CTXKIT_MANIFEST_NOT_FOUND');
    expect(error.fix).toContain('npm pack -w @ctxkit/core --pack-destination');
  });

  it('refuses a directory that does not exist', () => {
    expect(thrown(() => findCoreTarball(path.join(tmp, 'missing'), '0.1.0')).message).toContain(
      'not a readable directory',
    );
  });
});
