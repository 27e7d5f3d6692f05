import type { ErrorObject } from 'ajv';

import type { ManifestIssue } from '../errors/manifest-issue';

const ID_PATTERN_TEXT = 'lowercase letters and digits joined by single hyphens (e.g. my-complex-agent)';

/** Plain words for the patterns of ctxkit's own schemas. */
const PATTERN_WORDS: Record<string, string> = {
  '^[a-z0-9]+(?:-[a-z0-9]+)*$': ID_PATTERN_TEXT,
};

function describePattern(pattern: string): string {
  const known = PATTERN_WORDS[pattern];
  if (known) return known;
  if (pattern.startsWith('^(0|[1-9]\\d*)\\.')) return 'a semver version such as 1.0.0';
  if (pattern.startsWith('^(?![/\\\\])'))
    return 'a relative path inside the plugin directory, with "/" separators and no ".." (e.g. ./dist/index.js)';
  return `a string matching /${pattern}/`;
}

function escapePointerToken(token: string): string {
  return token.replace(/~/g, '~0').replace(/\//g, '~1');
}

function quote(value: unknown): string {
  return JSON.stringify(value);
}

/**
 * Turns ajv errors into {@link ManifestIssue}s: the file, a JSON pointer to the offending value (for
 * a missing or unknown property, the property itself), the message, and what was expected in
 * words. Duplicates are removed; order is ajv's.
 * @param pointerPrefix prepended to every pointer (`/contextStrategy/config` for a strategy config)
 */
export function toManifestIssues(
  errors: readonly ErrorObject[] | null | undefined,
  file: string,
  pointerPrefix = '',
): ManifestIssue[] {
  const issues: ManifestIssue[] = [];
  const seen = new Set<string>();
  for (const error of errors ?? []) {
    const issue = toIssue(error, file, pointerPrefix);
    const id = `${issue.pointer}\u0000${issue.message}`;
    if (seen.has(id)) continue;
    seen.add(id);
    issues.push(issue);
  }
  return issues;
}

function toIssue(error: ErrorObject, file: string, prefix: string): ManifestIssue {
  const params = error.params as Record<string, unknown>;
  const at = prefix + error.instancePath;
  switch (error.keyword) {
    case 'required': {
      const property = String(params.missingProperty);
      return {
        file,
        pointer: `${at}/${escapePointerToken(property)}`,
        message: `required property "${property}" is missing`,
        expected: requiredExpectation(error, property),
      };
    }
    case 'additionalProperties': {
      const property = String(params.additionalProperty);
      const known = Object.keys(
        ((error.parentSchema ?? {}) as { properties?: Record<string, unknown> }).properties ?? {},
      );
      return {
        file,
        pointer: `${at}/${escapePointerToken(property)}`,
        message: `unknown property "${property}"`,
        expected: known.length ? `only the known properties: ${known.join(', ')}` : 'no further properties',
      };
    }
    case 'type':
      return {
        file,
        pointer: at,
        message: `must be ${String(params.type)}, got ${jsonType(error.data)}`,
        expected: `type ${String(params.type)}`,
      };
    case 'const':
      return {
        file,
        pointer: at,
        message: `must be ${quote(params.allowedValue)}, got ${quote(error.data)}`,
        expected: quote(params.allowedValue),
      };
    case 'enum':
      return {
        file,
        pointer: at,
        message: `must be one of the allowed values, got ${quote(error.data)}`,
        expected: `one of: ${((params.allowedValues as unknown[]) ?? []).map(quote).join(', ')}`,
      };
    case 'pattern': {
      const words = describePattern(String(params.pattern));
      return { file, pointer: at, message: `${quote(error.data)} is not ${words}`, expected: words };
    }
    case 'minLength':
    case 'maxLength':
    case 'minimum':
    case 'maximum':
    case 'exclusiveMinimum':
    case 'exclusiveMaximum':
    case 'minItems':
    case 'maxItems':
    case 'minProperties':
    case 'maxProperties':
      return {
        file,
        pointer: at,
        message: error.message ?? error.keyword,
        expected: `${error.keyword} ${String(params.limit)}`,
      };
    case 'format':
      return {
        file,
        pointer: at,
        message: `${quote(error.data)} is not a valid ${String(params.format)}`,
        expected: `format ${String(params.format)}`,
      };
    case 'uniqueItems':
      return { file, pointer: at, message: error.message ?? 'items must be unique', expected: 'no duplicate items' };
    default:
      return {
        file,
        pointer: at,
        message: error.message ?? error.keyword,
        expected: `${error.keyword} ${quote(error.schema)}`,
      };
  }
}

function requiredExpectation(error: ErrorObject, property: string): string {
  const schema = (
    (error.parentSchema ?? {}) as {
      properties?: Record<string, { description?: unknown; type?: unknown; const?: unknown }>;
    }
  ).properties?.[property];
  if (schema?.const !== undefined) return `"${property}": ${quote(schema.const)}`;
  if (typeof schema?.type === 'string') return `"${property}" of type ${schema.type}`;
  return `a "${property}" property`;
}

function jsonType(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (Number.isInteger(value)) return 'integer';
  return typeof value;
}
