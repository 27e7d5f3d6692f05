import * as fs from 'node:fs';

/** The version of the `@ctxkit/core` this CLI runs with. */
export function installedCoreVersion(): string {
  const manifest = JSON.parse(fs.readFileSync(require.resolve('@ctxkit/core/package.json'), 'utf8')) as {
    version: string;
  };
  return manifest.version;
}
