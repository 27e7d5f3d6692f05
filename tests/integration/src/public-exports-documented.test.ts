import * as fs from 'node:fs';
import * as path from 'node:path';

import ts from 'typescript';

/**
 * Every public export of every package (what its src/index.ts exports, and the other entries of
 * @ctxkit/core: strategy-kit, testing, testing/generators)
 * carries a doc comment, read with the TypeScript compiler as an editor shows it.
 */

const root = path.join(__dirname, '..', '..', '..');

function entryPoints(): string[] {
  const entries: string[] = [];
  for (const group of ['packages', 'plugins']) {
    for (const name of fs.readdirSync(path.join(root, group))) {
      const entry = path.join(root, group, name, 'src', 'index.ts');
      if (fs.existsSync(entry)) entries.push(entry);
    }
  }
  entries.push(path.join(root, 'packages', 'core', 'src', 'testing', 'index.ts'));
  entries.push(path.join(root, 'packages', 'core', 'src', 'testing', 'generators', 'index.ts'));
  entries.push(path.join(root, 'packages', 'core', 'src', 'strategy-kit', 'index.ts'));
  return entries;
}

describe('public exports', () => {
  it('every export of every package has a doc comment', () => {
    const entries = entryPoints();
    const program = ts.createProgram(entries, {
      target: ts.ScriptTarget.ES2022,
      module: ts.ModuleKind.CommonJS,
      moduleResolution: ts.ModuleResolutionKind.Node10,
      experimentalDecorators: true,
      skipLibCheck: true,
      noEmit: true,
      baseUrl: root,
      paths: {
        '@ctxkit/core': ['packages/core/src/index.ts'],
        '@ctxkit/core/testing': ['packages/core/src/testing/index.ts'],
        '@ctxkit/core/testing/generators': ['packages/core/src/testing/generators/index.ts'],
        '@ctxkit/core/strategy-kit': ['packages/core/src/strategy-kit/index.ts'],
        '@ctxkit/kernel': ['packages/kernel/src/index.ts'],
      },
    });
    const checker = program.getTypeChecker();
    const undocumented: string[] = [];
    let exports = 0;
    for (const entry of entries) {
      const module = checker.getSymbolAtLocation(program.getSourceFile(entry)!);
      expect(module).toBeDefined();
      for (const exported of checker.getExportsOfModule(module!)) {
        exports++;
        const target = exported.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(exported) : exported;
        if (ts.displayPartsToString(target.getDocumentationComment(checker)).trim() === '')
          undocumented.push(`${path.relative(root, entry)}: ${exported.name}`);
      }
    }
    expect(exports).toBeGreaterThan(500);
    expect(undocumented).toEqual([]);
  }, 60_000);
});
