import * as fs from 'node:fs';
import * as path from 'node:path';

/**
 * The monorepo root: the nearest directory above this file whose package.json declares
 * workspaces; the working directory when there is none (an installed package).
 */
export function repositoryRoot(from: string = __dirname): string {
  for (let dir = path.resolve(from); ; dir = path.dirname(dir)) {
    const manifest = path.join(dir, 'package.json');
    if (fs.existsSync(manifest)) {
      try {
        if ((JSON.parse(fs.readFileSync(manifest, 'utf8')) as { workspaces?: unknown }).workspaces) return dir;
      } catch {
        // not readable: keep climbing
      }
    }
    if (path.dirname(dir) === dir) return process.cwd();
  }
}
