import * as fs from 'node:fs';
import * as path from 'node:path';

/**
 * The dependency direction of the packages, read from their sources: contracts at the bottom,
 * strategies and stores on core only, the kernel and the framework adapters on core, the CLI on
 * core, the kernel and the Redis store (which `ctxkit explain` reads). Strategies reach agents only through plugin.json
 * and the runtime's loader, never by import. See docs/02-architecture.md.
 */

const root = path.join(__dirname, '..', '..', '..');

interface Layer {
  /** Package folders, relative to the repository root. */
  folders: string[];
  /** The @ctxkit packages its sources may import. */
  mayImport: string[];
}

const pluginFolders = fs.readdirSync(path.join(root, 'plugins')).map((name) => `plugins/${name}`);

const LAYERS: Record<string, Layer> = {
  'contracts and runtime': { folders: ['packages/core'], mayImport: [] },
  'strategies and stores': {
    folders: [...pluginFolders, 'packages/store-redis', 'packages/store-postgres'],
    mayImport: ['@ctxkit/core'],
  },
  kernel: { folders: ['packages/kernel'], mayImport: ['@ctxkit/core'] },
  'framework adapters': {
    folders: ['packages/ai-sdk', 'packages/langchain', 'packages/openai-agents'],
    mayImport: ['@ctxkit/core'],
  },
  cli: { folders: ['packages/cli'], mayImport: ['@ctxkit/core', '@ctxkit/kernel', '@ctxkit/store-redis'] },
};

function sourceFiles(dir: string): string[] {
  const files: string[] = [];
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) files.push(...sourceFiles(full));
    else if (entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts')) files.push(full);
  }
  return files;
}

/** The @ctxkit package names a source imports (subpaths folded into their package). */
function ctxkitImports(file: string): string[] {
  const text = fs.readFileSync(file, 'utf8');
  const names = new Set<string>();
  for (const match of text.matchAll(
    /(?:from\s+|import\s*\(\s*|require\s*\(\s*)['"](@ctxkit\/[a-z0-9-]+)(?:\/[^'"]*)?['"]/g,
  ))
    names.add(match[1]!);
  return [...names];
}

const isTest = (file: string) => /\.test\.ts$|[\\/]__tests__[\\/]|[\\/]__fixtures__[\\/]|test-support\.ts$/.test(file);

describe('package layers', () => {
  for (const [layer, { folders, mayImport }] of Object.entries(LAYERS)) {
    it(
      `${layer}: sources import ` + `only ${mayImport.length > 0 ? mayImport.join(', ') : 'no other ctxkit package'}`,
      () => {
        const violations: string[] = [];
        for (const folder of folders) {
          const own = (JSON.parse(fs.readFileSync(path.join(root, folder, 'package.json'), 'utf8')) as { name: string })
            .name;
          for (const file of sourceFiles(path.join(root, folder, 'src'))) {
            for (const name of ctxkitImports(file)) {
              if (name === own) continue;
              // tests may use core's testing entry point (conformance suite, fixtures)
              if (isTest(file) && name === '@ctxkit/core') continue;
              if (!mayImport.includes(name)) violations.push(`${path.relative(root, file)} imports ${name}`);
            }
          }
        }
        expect(violations).toEqual([]);
      },
    );
  }

  it('every package declares the ctxkit packages its sources import', () => {
    const missing: string[] = [];
    for (const { folders } of Object.values(LAYERS)) {
      for (const folder of folders) {
        const manifest = JSON.parse(fs.readFileSync(path.join(root, folder, 'package.json'), 'utf8')) as {
          name: string;
          dependencies?: Record<string, string>;
          peerDependencies?: Record<string, string>;
        };
        const declared = new Set([
          manifest.name,
          ...Object.keys(manifest.dependencies ?? {}),
          ...Object.keys(manifest.peerDependencies ?? {}),
        ]);
        for (const file of sourceFiles(path.join(root, folder, 'src'))) {
          if (isTest(file)) continue;
          for (const name of ctxkitImports(file))
            if (!declared.has(name))
              missing.push(
                `${folder}: ${path.relative(root, file)} imports ${name}, which package.json does not declare`,
              );
        }
      }
    }
    expect(missing).toEqual([]);
  });

  it('covers every package and plugin of the repository', () => {
    const covered = new Set(Object.values(LAYERS).flatMap((layer) => layer.folders));
    const all = [
      ...fs.readdirSync(path.join(root, 'packages')).map((name) => `packages/${name}`),
      ...pluginFolders,
    ].filter((folder) => fs.existsSync(path.join(root, folder, 'package.json')));
    expect(all.filter((folder) => !covered.has(folder))).toEqual([]);
  });
});
