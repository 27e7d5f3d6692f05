import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

import type { CliOutput } from '../cli-output';
import type { PublishedVersionLookup } from '../scaffold/published-version';
import { newStrategyCommand, scaffoldStrategy } from './new-strategy-command';

const repo = path.resolve(__dirname, '../../../..');
const coreVersion = (
  JSON.parse(fs.readFileSync(path.join(repo, 'packages/core/package.json'), 'utf8')) as { version: string }
).version;

interface GeneratedPackage {
  name: string;
  dependencies: Record<string, string>;
  devDependencies: Record<string, string>;
}

const readPackage = (dir: string) =>
  JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8')) as GeneratedPackage;

function capture(): CliOutput & { stdout: () => string } {
  let text = '';
  return {
    out: (chunk) => void (text += chunk),
    err: (chunk) => void (text += chunk),
    color: false,
    interactive: false,
    stdout: () => text,
  };
}

/** A registry lookup that records what it was asked and answers `answer`. */
function registryAnswering(answer: ReturnType<PublishedVersionLookup>): PublishedVersionLookup & { asked: string[] } {
  const asked: string[] = [];
  return Object.assign(
    (name: string, range: string) => {
      asked.push(`${name}@${range}`);
      return answer;
    },
    { asked },
  );
}

describe('scaffoldStrategy', () => {
  let tmp: string;
  beforeEach(() => {
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'ctxkit-new-strategy-'));
  });
  afterEach(() => fs.rmSync(tmp, { recursive: true, force: true }));

  describe('outside a ctxkit checkout', () => {
    it('depends on the registry range of this core and asks the registry about it', () => {
      const lookUp = registryAnswering({ published: true, version: coreVersion });
      const result = scaffoldStrategy('pinned-note', {
        dir: path.join(tmp, 'pinned-note'),
        lookUpPublishedVersion: lookUp,
      });
      expect(readPackage(result.dir).dependencies).toEqual({ '@ctxkit/core': `^${coreVersion}` });
      expect(lookUp.asked).toEqual([`@ctxkit/core@^${coreVersion}`]);
      expect(result.core.source).toBe('registry');
    });

    it('depends on the core tarball by a path relative to the package that leads to it, and asks no registry', () => {
      const tarballs = path.join(tmp, 'tarballs');
      fs.mkdirSync(tarballs);
      fs.writeFileSync(path.join(tarballs, `ctxkit-core-${coreVersion}.tgz`), '');
      const lookUp = registryAnswering({ published: false, summary: 'unused' });
      const result = scaffoldStrategy('pinned-note', {
        dir: path.join(tmp, 'project', 'pinned-note'),
        fromTarballs: tarballs,
        lookUpPublishedVersion: lookUp,
      });
      const spec = readPackage(result.dir).dependencies['@ctxkit/core']!;
      expect(spec).toBe(`file:../../tarballs/ctxkit-core-${coreVersion}.tgz`);
      expect(path.resolve(result.dir, spec.slice('file:'.length))).toBe(
        path.join(tarballs, `ctxkit-core-${coreVersion}.tgz`),
      );
      expect(lookUp.asked).toEqual([]);
      expect(fs.readFileSync(path.join(result.dir, 'README.md'), 'utf8')).toContain(
        `change it to \`"^${coreVersion}"\``,
      );
      const plugin = JSON.parse(fs.readFileSync(path.join(result.dir, 'plugin.json'), 'utf8')) as {
        engines: { ctxkit: string };
      };
      expect(plugin.engines.ctxkit).toBe(`^${coreVersion}`);
    });

    it('writes nothing when the tarball directory holds no core tarball', () => {
      const dir = path.join(tmp, 'pinned-note');
      expect(() => scaffoldStrategy('pinned-note', { dir, fromTarballs: tmp })).toThrow(
        /holds no ctxkit-core-<version>\.tgz/,
      );
      expect(fs.existsSync(dir)).toBe(false);
    });
  });

  describe('inside this repository', () => {
    it('depends on the workspace core by its range and asks no registry', () => {
      fs.mkdirSync(path.join(repo, '.ctxkit'), { recursive: true });
      const parent = fs.mkdtempSync(path.join(repo, '.ctxkit', 'scaffold-'));
      try {
        const lookUp = registryAnswering({ published: false, summary: 'unused' });
        const result = scaffoldStrategy('pinned-note', {
          dir: path.join(parent, 'pinned-note'),
          lookUpPublishedVersion: lookUp,
        });
        expect(readPackage(result.dir).dependencies).toEqual({ '@ctxkit/core': `^${coreVersion}` });
        expect(result.core).toMatchObject({ source: 'workspace', workspace: { root: repo, member: false } });
        expect(lookUp.asked).toEqual([]);
      } finally {
        fs.rmSync(parent, { recursive: true, force: true });
      }
    });
  });

  it('pins the same test tooling as this repository', () => {
    const root = JSON.parse(fs.readFileSync(path.join(repo, 'package.json'), 'utf8')) as GeneratedPackage;
    const result = scaffoldStrategy('pinned-note', {
      dir: path.join(tmp, 'p'),
      lookUpPublishedVersion: registryAnswering({ published: true, version: coreVersion }),
    });
    for (const [name, version] of Object.entries(readPackage(result.dir).devDependencies))
      expect(root.devDependencies[name]).toBe(version);
  });

  it('refuses a directory that is not empty', () => {
    fs.writeFileSync(path.join(tmp, 'keep.txt'), '');
    expect(() => scaffoldStrategy('pinned-note', { dir: tmp })).toThrow(/exists and is not an empty directory/);
  });
});

describe('newStrategyCommand', () => {
  let tmp: string;
  beforeEach(() => {
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'ctxkit-new-strategy-'));
  });
  afterEach(() => fs.rmSync(tmp, { recursive: true, force: true }));

  it('does not print npm install as a next step when the registry does not have @ctxkit/core', async () => {
    const output = capture();
    const code = await newStrategyCommand(
      'pinned-note',
      {
        dir: path.join(tmp, 'pinned-note'),
        lookUpPublishedVersion: registryAnswering({ published: false, summary: 'Not Found' }),
      },
      output,
    );
    expect(code).toBe(0);
    expect(output.stdout()).not.toMatch(/^ {2}npm install\s*$/m);
    expect(output.stdout()).toMatch(/^ {2}npm install <dir>\/ctxkit-core-[\d.]+\.tgz/m);
  });

  it('prints npm install as a next step when the registry has @ctxkit/core', async () => {
    const output = capture();
    await newStrategyCommand(
      'pinned-note',
      {
        dir: path.join(tmp, 'pinned-note'),
        lookUpPublishedVersion: registryAnswering({ published: true, version: coreVersion }),
      },
      output,
    );
    expect(output.stdout()).toMatch(/^ {2}npm install\s*$/m);
  });
});
