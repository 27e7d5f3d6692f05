import * as fs from 'node:fs';
import * as path from 'node:path';
import { CtxkitError, ErrorCodes } from '@ctxkit/core';
import type { CliOutput } from '../cli-output';
import { strategyNames } from '../scaffold/strategy-names';
import { strategyTemplate } from '../scaffold/strategy-template';

export interface NewStrategyOptions {
  dir?: string;
  id?: string;
}

function coreVersion(): string {
  const manifest = JSON.parse(fs.readFileSync(require.resolve('@ctxkit/core/package.json'), 'utf8')) as { version: string };
  return manifest.version;
}

/**
 * Writes a new strategy plugin package (manifest with configSchema, a class implementing
 * IContextManager, factory, unit test, conformance test, README) into `dir` (default `./<name>`).
 * Refuses to write into a directory that is not empty.
 * @returns the directory written
 * @throws CtxkitError `CTXKIT_PLUGIN_PATH_UNSAFE` for a bad name or a non-empty directory
 */
export function scaffoldStrategy(name: string, options: NewStrategyOptions = {}): { dir: string; files: string[]; pluginId: string } {
  const names = strategyNames(name, options.id);
  const dir = path.resolve(options.dir ?? names.kebab);
  if (fs.existsSync(dir) && fs.readdirSync(dir).length > 0) {
    throw new CtxkitError({
      code: ErrorCodes.PLUGIN_PATH_UNSAFE,
      category: 'user',
      message: `${dir} exists and is not empty.`,
      fix: 'Choose another --dir, or remove the directory first.',
      details: { dir },
    });
  }
  const files = strategyTemplate(names, coreVersion());
  for (const file of files) {
    const target = path.join(dir, file.path);
    fs.mkdirSync(path.dirname(target), { recursive: true });
    fs.writeFileSync(target, file.text);
  }
  return { dir, files: files.map((file) => file.path), pluginId: names.pluginId };
}

/** `ctxkit new-strategy <name>`. */
export async function newStrategyCommand(name: string, options: NewStrategyOptions, output: CliOutput): Promise<number> {
  const result = scaffoldStrategy(name, options);
  output.out(`Created ${result.pluginId} in ${result.dir}:\n${result.files.map((file) => `  ${file}`).join('\n')}\n\n`);
  output.out(`Next:\n  cd ${path.relative(process.cwd(), result.dir) || '.'}\n  npm install\n  npm test        # unit test + the ctxkit conformance suite\n  npm run build   # dist/ for the runtime to load\n`);
  return 0;
}
