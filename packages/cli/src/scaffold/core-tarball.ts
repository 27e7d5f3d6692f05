import * as fs from 'node:fs';
import * as path from 'node:path';

import { CtxkitError, ErrorCodes } from '@ctxkit/core';

/** The `npm pack` tarball of `@ctxkit/core` in a directory of ctxkit tarballs. */
export interface CoreTarball {
  /** Absolute path of the tarball. */
  file: string;
  /** The version in its name (`ctxkit-core-0.1.0.tgz` → `0.1.0`). */
  version: string;
}

/** `npm pack` names a scoped package's tarball `<scope>-<name>-<version>.tgz`. */
const CORE_TARBALL = /^ctxkit-core-(\d+\.\d+\.\d+(?:-[0-9A-Za-z.-]+)?)\.tgz$/;

/** The command that writes the tarballs, for the fix of every error here. */
const PACK_COMMAND = 'in a ctxkit checkout: `npm run build`, then `npm pack -w @ctxkit/core --pack-destination <dir>`';

/**
 * Finds `ctxkit-core-<version>.tgz` in `dir` (a directory of `npm pack` tarballs of the ctxkit
 * packages). With several versions there, the one equal to `preferredVersion` is taken.
 * @throws CtxkitError `CTXKIT_MANIFEST_NOT_FOUND` when `dir` is not a directory, holds no core tarball, or holds
 *   several and none is `preferredVersion`
 */
export function findCoreTarball(dir: string, preferredVersion: string): CoreTarball {
  const directory = path.resolve(dir);
  let names: string[];
  try {
    names = fs.readdirSync(directory);
  } catch {
    throw new CtxkitError({
      code: ErrorCodes.MANIFEST_NOT_FOUND,
      category: 'user',
      message: `${directory} is not a readable directory of ctxkit tarballs.`,
      fix: `Pass the directory that holds ctxkit-core-<version>.tgz (${PACK_COMMAND}).`,
      details: { dir: directory },
    });
  }
  const tarballs = names.flatMap((name) => {
    const match = CORE_TARBALL.exec(name);
    return match ? [{ file: path.join(directory, name), version: match[1]! }] : [];
  });
  if (tarballs.length === 0) {
    throw new CtxkitError({
      code: ErrorCodes.MANIFEST_NOT_FOUND,
      category: 'user',
      message: `${directory} holds no ctxkit-core-<version>.tgz.`,
      fix: `Write the tarballs there first (${PACK_COMMAND}).`,
      details: { dir: directory },
    });
  }
  if (tarballs.length === 1) return tarballs[0]!;
  const preferred = tarballs.find((tarball) => tarball.version === preferredVersion);
  if (preferred) return preferred;
  throw new CtxkitError({
    code: ErrorCodes.MANIFEST_NOT_FOUND,
    category: 'user',
    message: `${directory} holds several core tarballs (${tarballs
      .map((tarball) => path.basename(tarball.file))
      .sort()
      .join(', ')}) and none of version ${preferredVersion}.`,
    fix: 'Keep one version of the tarballs in the directory.',
    details: { dir: directory, versions: tarballs.map((tarball) => tarball.version).sort() },
  });
}
