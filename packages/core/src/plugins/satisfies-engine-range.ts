/**
 * Whether `version` satisfies a semver range of the forms plugins write in `engines.ctxkit`:
 * `*`, `x`, exact `1.2.3`, partial `1.2` / `1.x`, `^1.2.3`, `~1.2.3`, comparators `>=`, `>`, `<=`,
 * `<`, `=`, space-separated (all must hold) and `||` alternatives. Pre-release tags of `version` are
 * ignored. Returns `undefined` for a range it cannot read, so the caller can say so rather than guess.
 */
export function satisfiesEngineRange(version: string, range: string): boolean | undefined {
  const current = parseVersion(version);
  if (!current) return undefined;
  let understood = true;
  const result = range.split('||').some((alternative) => {
    const comparators = alternative.trim().split(/\s+/).filter(Boolean);
    if (comparators.length === 0) return true;
    return comparators.every((comparator) => {
      const verdict = check(current, comparator);
      if (verdict === undefined) understood = false;
      return verdict === true;
    });
  });
  return understood || result ? result : undefined;
}

type Triple = [number, number, number];

function parseVersion(text: string): Triple | undefined {
  const match = /^v?(\d+)\.(\d+)\.(\d+)/.exec(text.trim());
  return match ? [Number(match[1]), Number(match[2]), Number(match[3])] : undefined;
}

/** A possibly partial version: missing or `x`/`*` parts are undefined. */
function parsePartial(text: string): Array<number | undefined> | undefined {
  const match = /^v?(\d+|[xX*])(?:\.(\d+|[xX*]))?(?:\.(\d+|[xX*]))?(?:-[0-9A-Za-z.-]+)?$/.exec(text);
  if (!match) return undefined;
  return [match[1], match[2], match[3]].map((part) => (part === undefined || /^[xX*]$/.test(part) ? undefined : Number(part)));
}

function compare(a: Triple, b: Triple): number {
  for (let i = 0; i < 3; i++) if (a[i] !== b[i]) return a[i]! < b[i]! ? -1 : 1;
  return 0;
}

function check(current: Triple, comparator: string): boolean | undefined {
  const match = /^(\^|~|>=|<=|>|<|=)?(.+)$/.exec(comparator);
  if (!match) return undefined;
  const operator = match[1] ?? '';
  const partial = parsePartial(match[2]!);
  if (!partial) return undefined;
  const [major, minor, patch] = partial;
  const low: Triple = [major ?? 0, minor ?? 0, patch ?? 0];
  if (major === undefined) return operator === '' || operator === '=' || operator === '>=' ? true : undefined;
  switch (operator) {
    case '':
    case '=':
      if (minor === undefined) return current[0] === major;
      if (patch === undefined) return current[0] === major && current[1] === minor;
      return compare(current, low) === 0;
    case '>=':
      return compare(current, low) >= 0;
    case '>':
      return compare(current, low) > 0;
    case '<=':
      return compare(current, low) <= 0;
    case '<':
      return compare(current, low) < 0;
    case '~': {
      const high: Triple = minor === undefined ? [major + 1, 0, 0] : [major, minor + 1, 0];
      return compare(current, low) >= 0 && compare(current, high) < 0;
    }
    case '^': {
      const high: Triple =
        major > 0 || minor === undefined ? [major + 1, 0, 0] : minor > 0 || patch === undefined ? [0, minor + 1, 0] : [0, 0, patch + 1];
      return compare(current, low) >= 0 && compare(current, high) < 0;
    }
    default:
      return undefined;
  }
}
