import * as fs from 'node:fs';
import * as path from 'node:path';

import { repositoryRoot } from './repository-root';

/** The environment variable that points the harness at a LoCoMo JSONL file. */
export const LOCOMO_PATH_VARIABLE = 'CTXKIT_LOCOMO_PATH';

/**
 * Where the LoCoMo conversations are read from: `$CTXKIT_LOCOMO_PATH`, else
 * `../shared/data/locomo10.jsonl` beside the repository. The data is licensed for non-commercial
 * use only, so it is never bundled; returns the path and whether it exists.
 */
export function locomoFile(env: NodeJS.ProcessEnv = process.env): { file: string; exists: boolean } {
  const file = env[LOCOMO_PATH_VARIABLE] || path.resolve(repositoryRoot(), '..', 'shared', 'data', 'locomo10.jsonl');
  return { file, exists: fs.existsSync(file) };
}
