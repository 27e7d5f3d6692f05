import * as path from 'node:path';

import type { CoreDependency } from './core-dependency';
import { nextSteps } from './next-steps';

const cwd = path.resolve('/home/dev/project');
const dir = path.join(cwd, 'pinned-note');
const packageName = 'ctxkit-strategy-pinned-note';
const commands = (text: string) =>
  text
    .split('\n')
    .filter((line) => line.startsWith('  '))
    .map((line) => line.trim().replace(/\s+#.*$/, ''));

describe('nextSteps', () => {
  const registry = (answer: Extract<CoreDependency, { source: 'registry' }>['registry']): CoreDependency => ({
    source: 'registry',
    spec: '^0.1.0',
    version: '0.1.0',
    registry: answer,
  });

  it('says npm install where the registry has @ctxkit/core', () => {
    expect(
      commands(nextSteps({ dir, packageName, cwd, core: registry({ published: true, version: '0.1.4' }) })),
    ).toEqual(['cd pinned-note', 'npm install', 'npm test', 'npm run build']);
  });

  it(
    'never says a bare npm install where the registry does not have @ctxkit/core, and says why and what ' + 'instead',
    () => {
      const text = nextSteps({
        dir,
        packageName,
        cwd,
        core: registry({ published: false, summary: 'Not Found - GET https://registry.npmjs.org/@ctxkit%2fcore' }),
      });
      expect(commands(text)).toEqual([
        'cd pinned-note',
        'npm install <dir>/ctxkit-core-0.1.0.tgz',
        'npm test',
        'npm run build',
      ]);
      expect(text).toContain(
        '@ctxkit/core@^0.1.0 is not on the npm registry (Not Found - GET https://registry.npmjs.org/@ctxkit%2fcore)',
      );
      expect(text).toContain('--from-tarballs <dir>');
      expect(text).toContain('npm pack -w @ctxkit/core --pack-destination <dir>');
    },
  );

  it('makes npm install conditional when the registry could not be asked', () => {
    const text = nextSteps({
      dir,
      packageName,
      cwd,
      core: registry({ published: undefined, reason: 'getaddrinfo ENOTFOUND registry.npmjs.org' }),
    });
    expect(text).toContain(
      'Could not ask the npm registry for @ctxkit/core@^0.1.0 (getaddrinfo ENOTFOUND registry.npmjs.org)',
    );
    expect(text).toMatch(/npm install +# only if @ctxkit\/core@\^0\.1\.0 is published on your registry/);
    expect(text).toContain('npm install <dir>/ctxkit-core-0.1.0.tgz');
  });

  it('says npm install for a tarball dependency, naming the tarball', () => {
    const core: CoreDependency = {
      source: 'tarball',
      spec: 'file:../tarballs/ctxkit-core-0.1.0.tgz',
      version: '0.1.0',
      tarball: '/home/dev/tarballs/ctxkit-core-0.1.0.tgz',
    };
    const text = nextSteps({ dir, packageName, cwd, core });
    expect(commands(text)).toEqual(['cd pinned-note', 'npm install', 'npm test', 'npm run build']);
    expect(text).toContain('/home/dev/tarballs/ctxkit-core-0.1.0.tgz');
  });

  it('installs a workspace of a ctxkit checkout from its root, and runs its scripts there', () => {
    const root = path.resolve('/home/dev/ctxkit');
    const core: CoreDependency = {
      source: 'workspace',
      spec: '^0.1.0',
      version: '0.1.0',
      workspace: { root, member: true },
    };
    expect(
      commands(
        nextSteps({ dir: path.join(root, 'plugins', 'pinned-note'), packageName, cwd: path.join(root, 'docs'), core }),
      ),
    ).toEqual(['cd ..', 'npm install', `npm test -w ${packageName}`, `npm run build -w ${packageName}`]);
  });

  it(
    'does not say npm install for a directory of a ctxkit checkout that is not a workspace (its dependencies ' +
      'resolve from the root)',
    () => {
      const root = path.resolve('/home/dev/ctxkit');
      const core: CoreDependency = {
        source: 'workspace',
        spec: '^0.1.0',
        version: '0.1.0',
        workspace: { root, member: false },
      };
      const text = nextSteps({ dir: path.join(root, 'scratch', 'pinned-note'), packageName, cwd: root, core });
      expect(commands(text)).toEqual(['cd scratch/pinned-note', 'npm test', 'npm run build']);
      expect(text).toContain(path.join(root, 'package.json'));
    },
  );

  it('leaves out the cd when the package is where the user is', () => {
    expect(
      commands(nextSteps({ dir: cwd, packageName, cwd, core: registry({ published: true, version: '0.1.0' }) }))[0],
    ).toBe('npm install');
  });
});
