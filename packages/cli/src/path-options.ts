import * as fs from 'node:fs';
import * as path from 'node:path';

import { InvalidArgumentError } from 'commander';

function statOf(file: string): fs.Stats | undefined {
  try {
    return fs.statSync(file);
  } catch {
    return undefined;
  }
}

/**
 * Parses an option naming a file to read: it must exist. Commander prints the option, the value and this reason (exit
 * 2).
 */
export function existingFile(value: string): string {
  return existingPath(value, 'file');
}

/** Parses an option naming a directory to read: it must exist. */
export function existingDirectory(value: string): string {
  return existingPath(value, 'directory');
}

/**
 * `value` when it names an existing `kind`; else an `InvalidArgumentError` that says what is there and what to pass.
 */
function existingPath(value: string, kind: 'file' | 'directory'): string {
  const absolute = path.resolve(value);
  const stats = statOf(absolute);
  if (!stats)
    throw new InvalidArgumentError(`there is no ${kind} at ${absolute}: pass the path of an existing ${kind}.`);
  if (!(kind === 'file' ? stats.isFile() : stats.isDirectory()))
    throw new InvalidArgumentError(`${absolute} is not a ${kind}: pass the path of an existing ${kind}.`);
  return value;
}

function writable(target: string): boolean {
  try {
    fs.accessSync(target, fs.constants.W_OK);
    return true;
  } catch {
    return false;
  }
}

/**
 * Parses an option naming a file to write (a report, results): checked before the command runs, so
 * that a long run does not end on a path it cannot write. Its directory may be missing (it is
 * created) but not be a file; an existing file there must be writable, and not a directory.
 */
export function writableFile(value: string): string {
  const absolute = path.resolve(value);
  const stats = statOf(absolute);
  if (stats?.isDirectory())
    throw new InvalidArgumentError(`${absolute} is a directory: pass the path of a file to write.`);
  if (stats && !writable(absolute))
    throw new InvalidArgumentError(`${absolute} is not writable: pass a file path you may write to.`);
  let ancestor = path.dirname(absolute);
  while (!statOf(ancestor) && path.dirname(ancestor) !== ancestor) ancestor = path.dirname(ancestor);
  if (!statOf(ancestor)?.isDirectory())
    throw new InvalidArgumentError(
      `${ancestor} is a file, not a directory: pass a path in a directory (missing directories are created).`,
    );
  if (!writable(ancestor))
    throw new InvalidArgumentError(`${ancestor} is not writable: pass a file path you may write to.`);
  return value;
}
