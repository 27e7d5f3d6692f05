import * as fs from 'node:fs';
import * as path from 'node:path';

import { CtxkitError, ErrorCodes } from '@ctxkit/core';

/**
 * Returns the absolute path of `dir` when a new package may be written there: it does not exist
 * yet, or it is an empty directory.
 * @throws CtxkitError `CTXKIT_PLUGIN_PATH_UNSAFE` when it is a file or a directory that is not empty
 */
export function checkScaffoldDirectory(dir: string): string {
  const absolute = path.resolve(dir);
  let entries: string[] | undefined;
  try {
    entries = fs.statSync(absolute).isDirectory() ? fs.readdirSync(absolute) : ['(a file)'];
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') {
      throw new CtxkitError({
        code: ErrorCodes.PLUGIN_PATH_UNSAFE,
        category: 'user',
        message: `${absolute} cannot be read (${(error as Error).message}).`,
        fix: 'Choose a --dir you may write to.',
        details: { dir: absolute },
        cause: error,
      });
    }
    entries = undefined; // does not exist yet: it is created
  }
  if (entries && entries.length > 0) {
    throw new CtxkitError({
      code: ErrorCodes.PLUGIN_PATH_UNSAFE,
      category: 'user',
      message: `${absolute} exists and is not an empty directory.`,
      fix: 'Choose another --dir, or remove it first.',
      details: { dir: absolute },
    });
  }
  return absolute;
}
