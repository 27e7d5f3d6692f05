import { spawnSync } from 'node:child_process';

/** What the npm registry says about a package range. */
export type PublishedVersion =
  /** A version in the range is published: `npm install` can resolve it. */
  | { published: true; version: string }
  /**
   * The registry answered that nothing in the range is published (`summary` is npm's own line, naming the registry).
   */
  | { published: false; summary: string }
  /** The registry could not be asked (offline, npm missing, a timeout): `reason` says why. */
  | { published: undefined; reason: string };

/** Asks the npm registry whether a version of `name` in `range` is published. */
export type PublishedVersionLookup = (name: string, range: string) => PublishedVersion;

/** How long `npm view` may take before the answer counts as unknown. */
const LOOKUP_TIMEOUT_MS = 20_000;

interface NpmViewError {
  error?: { code?: unknown; summary?: unknown };
}

/**
 * Reads the answer of `npm view <name>@<range> version --json`: the newest matching version, an
 * `E404` (no such package, or no version in the range), or anything else as unknown.
 */
export function readNpmViewAnswer(status: number | null, stdout: string, stderr: string): PublishedVersion {
  let parsed: unknown;
  try {
    parsed = stdout.trim() === '' ? undefined : JSON.parse(stdout);
  } catch {
    parsed = undefined;
  }
  if (status === 0) {
    const version = Array.isArray(parsed) ? parsed[parsed.length - 1] : parsed;
    if (typeof version === 'string') return { published: true, version };
    return { published: false, summary: 'no version in the range is published' };
  }
  const error = (parsed as NpmViewError | undefined)?.error;
  if (error?.code === 'E404')
    return { published: false, summary: typeof error.summary === 'string' ? error.summary : 'not found' };
  const firstProblem =
    stderr.split('\n').find((line) => line.startsWith('npm error')) ?? `npm view exited with ${String(status)}`;
  return { published: undefined, reason: typeof error?.summary === 'string' ? error.summary : firstProblem.trim() };
}

/** {@link PublishedVersionLookup} through the user's own `npm view` (their registry and credentials). */
export const lookUpPublishedVersion: PublishedVersionLookup = (name, range) => {
  const windows = process.platform === 'win32';
  const result = spawnSync(windows ? 'npm.cmd' : 'npm', ['view', `${name}@${range}`, 'version', '--json'], {
    encoding: 'utf8',
    timeout: LOOKUP_TIMEOUT_MS,
    shell: windows,
  });
  if (result.error) return { published: undefined, reason: result.error.message };
  return readNpmViewAnswer(result.status, result.stdout, result.stderr);
};
