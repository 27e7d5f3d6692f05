import * as fs from 'node:fs';
import * as path from 'node:path';

/**
 * The version of this `@ctxkit/core`, read from its package.json (beside both `src/` and `dist/`).
 * Plugins state the range they support in `engines.ctxkit`; the loader checks it against this.
 */
export const CTXKIT_CORE_VERSION: string = (() => {
  try {
    const pkg = JSON.parse(fs.readFileSync(path.resolve(__dirname, '..', '..', 'package.json'), 'utf8')) as {
      version?: unknown;
    };
    return typeof pkg.version === 'string' ? pkg.version : '0.0.0';
  } catch {
    return '0.0.0';
  }
})();
