import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

import { findCtxkitWorkspace } from './ctxkit-workspace';

const repo = path.resolve(__dirname, '../../../..');

function writeJson(file: string, value: unknown): void {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, JSON.stringify(value));
}

describe('findCtxkitWorkspace', () => {
  let tmp: string;
  beforeEach(() => {
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'ctxkit-workspace-'));
  });
  afterEach(() => fs.rmSync(tmp, { recursive: true, force: true }));

  it('finds this repository and tells a workspace directory from another one', () => {
    expect(findCtxkitWorkspace(path.join(repo, 'plugins', 'pinned-note'))).toEqual({ root: repo, member: true });
    expect(findCtxkitWorkspace(path.join(repo, '.ctxkit', 'pinned-note'))).toEqual({ root: repo, member: false });
  });

  it('finds nothing outside a workspace root', () => {
    expect(findCtxkitWorkspace(path.join(tmp, 'project', 'pinned-note'))).toBeUndefined();
  });

  it('finds nothing in a workspace root that does not hold @ctxkit/core', () => {
    writeJson(path.join(tmp, 'package.json'), { name: 'other', workspaces: ['packages/*'] });
    writeJson(path.join(tmp, 'packages', 'app', 'package.json'), {
      name: 'app',
      dependencies: { '@ctxkit/core': '^0.1.0' },
    });
    expect(findCtxkitWorkspace(path.join(tmp, 'packages', 'pinned-note'))).toBeUndefined();
  });

  it('reads literal patterns, `*` segments and the { packages } form', () => {
    writeJson(path.join(tmp, 'package.json'), {
      name: 'root',
      workspaces: { packages: ['./libs/ctxkit-core', 'strategies/*-plugin/'] },
    });
    writeJson(path.join(tmp, 'libs', 'ctxkit-core', 'package.json'), { name: '@ctxkit/core' });
    expect(findCtxkitWorkspace(path.join(tmp, 'strategies', 'pinned-plugin'))).toEqual({ root: tmp, member: true });
    expect(findCtxkitWorkspace(path.join(tmp, 'strategies', 'pinned'))).toEqual({ root: tmp, member: false });
    expect(findCtxkitWorkspace(path.join(tmp, 'strategies', 'deep', 'pinned-plugin'))).toEqual({
      root: tmp,
      member: false,
    });
  });

  it('stops at the nearest workspace root', () => {
    writeJson(path.join(tmp, 'package.json'), { name: 'outer', workspaces: ['core'] });
    writeJson(path.join(tmp, 'core', 'package.json'), { name: '@ctxkit/core' });
    writeJson(path.join(tmp, 'inner', 'package.json'), { name: 'inner', workspaces: ['*'] });
    expect(findCtxkitWorkspace(path.join(tmp, 'inner', 'pinned-note'))).toBeUndefined();
  });
});
