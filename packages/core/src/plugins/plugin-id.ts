import * as fs from 'node:fs';
import * as path from 'node:path';

import { UnsafePathError } from '../errors/unsafe-path-error';

/**
 * The pattern of plugin and agent ids: lowercase letters and digits in groups joined by single
 * hyphens (`std-sliding-window-strategy`). No `/`, `\`, `.`, so no id can traverse paths, and ids
 * are safe inside store keys, event names and file names.
 */
export const PLUGIN_ID_PATTERN = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;

/** Longest id accepted. */
export const PLUGIN_ID_MAX_LENGTH = 128;

/** True when `id` is a valid plugin or agent id. */
export function isValidPluginId(id: unknown): id is string {
  return typeof id === 'string' && id.length <= PLUGIN_ID_MAX_LENGTH && PLUGIN_ID_PATTERN.test(id);
}

/**
 * Asserts that `id` is a valid plugin or agent id.
 * @param what what the id names, for the message (`plugin id`, `agent id`)
 * @throws UnsafePathError (`CTXKIT_PLUGIN_PATH_UNSAFE`)
 */
export function assertPluginId(id: unknown, what = 'plugin id'): asserts id is string {
  if (!isValidPluginId(id)) {
    throw new UnsafePathError(
      what,
      String(id),
      'use lowercase letters and digits joined by single hyphens (e.g. my-team-strategy)',
    );
  }
}

/**
 * Resolves `relative` against `dir` and asserts that the result stays inside `dir`, also after
 * following symbolic links when the target exists. Absolute paths, `..` segments, backslashes and
 * links pointing outside are all rejected.
 * @param what what the path names, for the message (`entry of std-x`)
 * @returns the absolute path (with links resolved when it exists)
 * @throws UnsafePathError (`CTXKIT_PLUGIN_PATH_UNSAFE`)
 */
export function resolveInside(dir: string, relative: string, what: string): string {
  if (typeof relative !== 'string' || relative.length === 0 || relative.includes('\0')) {
    throw new UnsafePathError(what, String(relative), 'must be a non-empty relative path');
  }
  if (path.isAbsolute(relative) || /^[A-Za-z]:/.test(relative) || relative.includes('\\')) {
    throw new UnsafePathError(
      what,
      relative,
      'must be a relative path with "/" separators inside the plugin directory',
    );
  }
  const base = realpathOr(path.resolve(dir));
  const target = path.resolve(base, relative);
  if (!isInside(base, target)) throw new UnsafePathError(what, relative, 'resolves outside the plugin directory');
  const real = realpathOr(target);
  if (!isInside(base, real))
    throw new UnsafePathError(what, relative, 'is a link that resolves outside the plugin directory');
  return real;
}

function isInside(base: string, target: string): boolean {
  const relative = path.relative(base, target);
  return relative === '' || (!relative.startsWith('..') && !path.isAbsolute(relative));
}

function realpathOr(file: string): string {
  try {
    return fs.realpathSync(file);
  } catch {
    return file;
  }
}
