import * as fs from 'node:fs';
import * as path from 'node:path';

/** An npm workspace root that holds `@ctxkit/core` as one of its workspaces (a ctxkit checkout). */
export interface CtxkitWorkspace {
  /** The directory whose package.json declares the workspaces. */
  root: string;
  /** True when the scaffold's directory matches one of the root's workspace patterns. */
  member: boolean;
}

interface PackageManifest {
  name?: unknown;
  workspaces?: unknown;
}

function readManifest(dir: string): PackageManifest | undefined {
  try {
    return JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8')) as PackageManifest;
  } catch {
    return undefined;
  }
}

/** The workspace patterns of a package.json: the array form or `{ packages: [...] }`. */
function workspacePatterns(manifest: PackageManifest): string[] {
  const declared = manifest.workspaces;
  const list = Array.isArray(declared) ? declared : (declared as { packages?: unknown } | undefined)?.packages;
  return Array.isArray(list) ? list.filter((entry): entry is string => typeof entry === 'string') : [];
}

/** Splits a pattern or a relative path into segments (`./` and trailing slashes ignored). */
function segments(relative: string): string[] {
  return relative.split(/[\\/]+/).filter((part) => part !== '' && part !== '.');
}

/** One pattern segment as a regular expression: `*` matches any run of characters in a name. */
function segmentPattern(segment: string): RegExp {
  const literal = (piece: string) => piece.replace(/[.+?^$()|[\]{}\\]/g, '\\$&');
  return new RegExp(`^${segment.split('*').map(literal).join('.*')}$`);
}

/** True when `relativeDir` matches `pattern`, segment by segment (`*` within one directory name). */
function matchesPattern(relativeDir: string, pattern: string): boolean {
  const dir = segments(relativeDir);
  const glob = segments(pattern);
  return dir.length === glob.length && glob.every((part, index) => segmentPattern(part).test(dir[index]!));
}

/** The directories a root's patterns name (a `*` segment expands to the subdirectories there). */
function workspaceDirs(root: string, patterns: readonly string[]): string[] {
  const dirs: string[] = [];
  for (const pattern of patterns) {
    let candidates = [root];
    for (const part of segments(pattern)) {
      candidates = part.includes('*')
        ? candidates.flatMap((base) =>
            subdirectories(base)
              .filter((name) => matchesPattern(name, part))
              .map((name) => path.join(base, name)),
          )
        : candidates.map((base) => path.join(base, part));
    }
    dirs.push(...candidates);
  }
  return dirs;
}

function subdirectories(dir: string): string[] {
  try {
    return fs
      .readdirSync(dir, { withFileTypes: true })
      .filter((entry) => entry.isDirectory())
      .map((entry) => entry.name);
  } catch {
    return [];
  }
}

/**
 * The ctxkit workspace `dir` lies in: the nearest directory above it whose package.json declares
 * workspaces, when one of those workspaces is `@ctxkit/core`. Undefined elsewhere (a project that
 * installs ctxkit from the registry or from tarballs).
 */
export function findCtxkitWorkspace(dir: string): CtxkitWorkspace | undefined {
  const target = path.resolve(dir);
  for (let current = path.dirname(target); ; current = path.dirname(current)) {
    const manifest = readManifest(current);
    const patterns = manifest ? workspacePatterns(manifest) : [];
    if (patterns.length > 0) {
      const holdsCore = workspaceDirs(current, patterns).some(
        (workspace) => readManifest(workspace)?.name === '@ctxkit/core',
      );
      if (!holdsCore) return undefined;
      const relative = path.relative(current, target);
      return { root: current, member: patterns.some((pattern) => matchesPattern(relative, pattern)) };
    }
    if (path.dirname(current) === current) return undefined;
  }
}
