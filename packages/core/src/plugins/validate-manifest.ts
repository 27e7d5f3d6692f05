import * as fs from 'node:fs';
import * as path from 'node:path';

import type { ValidateFunction } from 'ajv';

import { CtxkitError } from '../errors/ctxkit-error';
import type { ManifestIssue } from '../errors/manifest-issue';
import { compileConfigSchema } from './compile-config-schema';
import { createAjv } from './create-ajv';
import { toManifestIssues } from './schema-issues';

/** Which manifest a `plugin.json` is: an agent's, or a strategy plugin's. */
export type ManifestKind = 'agent' | 'plugin';

/** The result of {@link validateManifest}. */
export interface ManifestValidationResult {
  valid: boolean;
  kind: ManifestKind;
  /** The file validated, or `<inline>` for an object. */
  file: string;
  /** Every problem found (ajv `allErrors`), each with file, JSON pointer, message and what was expected. */
  errors: ManifestIssue[];
  /** The parsed manifest when the file could be read and parsed (valid or not). */
  manifest?: Record<string, unknown>;
}

/** Options of {@link validateManifest}. */
export interface ValidateManifestOptions {
  /**
   * Which schema to validate against. Detected when absent: a manifest with `kind`, `entry` or
   * `configSchema` is a plugin's, anything else an agent's.
   */
  kind?: ManifestKind;
  /** The name to report for an inline object. @default '<inline>' */
  file?: string;
}

/** Where ctxkit's schemas live: `packages/core/schemas`, beside both `src/` and `dist/`. */
export const SCHEMAS_DIR = path.resolve(__dirname, '..', '..', 'schemas');

const SCHEMA_FILES: Record<ManifestKind, string> = {
  agent: 'agent-manifest.schema.json',
  plugin: 'plugin-manifest.schema.json',
};

const validators = new Map<ManifestKind, ValidateFunction>();

/** The compiled validator of a ctxkit manifest schema, compiled once per process. */
export function manifestValidator(kind: ManifestKind): ValidateFunction {
  let validate = validators.get(kind);
  if (!validate) {
    const schema = JSON.parse(fs.readFileSync(path.join(SCHEMAS_DIR, SCHEMA_FILES[kind]), 'utf8')) as object;
    validate = createAjv('ctxkit').compile(schema);
    validators.set(kind, validate);
  }
  return validate;
}

/** Detects the kind of a parsed `plugin.json`. */
export function detectManifestKind(manifest: unknown): ManifestKind {
  if (typeof manifest !== 'object' || manifest === null) return 'agent';
  return 'kind' in manifest || 'entry' in manifest || 'configSchema' in manifest ? 'plugin' : 'agent';
}

/**
 * Validates an agent's or a strategy plugin's `plugin.json` against ctxkit's schemas
 * (`@ctxkit/core/schemas/*.schema.json`) and, for a plugin, its `configSchema` against the JSON
 * Schema meta-schema. Reports every problem at once; never throws.
 *
 * An agent's `contextStrategy.config` is checked against the plugin's `configSchema` only by
 * `runtime.loadAgent`, which knows the plugins.
 * @param manifestOrPath a parsed manifest, a path to a `plugin.json`, or a directory holding one
 * @see docs/03-plugin-json.md
 */
export function validateManifest(
  manifestOrPath: unknown,
  options: ValidateManifestOptions = {},
): ManifestValidationResult {
  let file = options.file ?? '<inline>';
  let manifest: unknown = manifestOrPath;
  if (typeof manifestOrPath === 'string') {
    const read = readManifestFile(manifestOrPath);
    file = read.file;
    if (read.issue) return { valid: false, kind: options.kind ?? 'agent', file, errors: [read.issue] };
    manifest = read.manifest;
  }
  const kind = options.kind ?? detectManifestKind(manifest);
  if (typeof manifest !== 'object' || manifest === null || Array.isArray(manifest)) {
    return {
      valid: false,
      kind,
      file,
      errors: [
        {
          file,
          pointer: '',
          message:
            `a manifest must be a JSON object, ` +
            `got ${Array.isArray(manifest) ? 'array' : manifest === null ? 'null' : typeof manifest}`,
          expected: 'type object',
        },
      ],
    };
  }
  const record = manifest as Record<string, unknown>;
  const validate = manifestValidator(kind);
  // An `if` error only says that a conditional branch failed; the branch's own errors say what.
  const errors = validate(record)
    ? []
    : toManifestIssues(
        validate.errors?.filter((error) => error.keyword !== 'if'),
        file,
      );
  if (
    kind === 'plugin' &&
    typeof record.configSchema === 'object' &&
    record.configSchema !== null &&
    !Array.isArray(record.configSchema)
  ) {
    try {
      compileConfigSchema(
        record.configSchema,
        typeof record.id === 'string' ? record.id : '(plugin)',
        `${file}#/configSchema`,
      );
    } catch (error) {
      const problem = CtxkitError.isInstance(error) ? String(error.details.problem ?? error.message) : String(error);
      errors.push({
        file,
        pointer: '/configSchema',
        message: `invalid JSON Schema: ${problem}`,
        expected: 'a valid JSON Schema (draft-07, or 2020-12 with its $schema)',
      });
    }
  }
  return { valid: errors.length === 0, kind, file, errors, manifest: record };
}

/** Result of reading a manifest file: the parsed value, or the issue that prevented it. */
export interface ReadManifestResult {
  file: string;
  manifest?: unknown;
  issue?: ManifestIssue;
}

/**
 * Reads and parses a `plugin.json` (a directory means its `plugin.json`). Never throws: a missing
 * file or invalid JSON comes back as an issue.
 */
export function readManifestFile(fileOrDir: string): ReadManifestResult {
  let file = path.resolve(fileOrDir);
  try {
    if (fs.statSync(file).isDirectory()) file = path.join(file, 'plugin.json');
  } catch {
    return { file, issue: { file, pointer: '', message: 'file not found', expected: 'a readable plugin.json file' } };
  }
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (error) {
    return {
      file,
      issue: {
        file,
        pointer: '',
        message: `cannot read the file: ${(error as Error).message}`,
        expected: 'a readable plugin.json file',
      },
    };
  }
  try {
    return { file, manifest: JSON.parse(text.replace(/^\uFEFF/, '')) };
  } catch (error) {
    return {
      file,
      issue: { file, pointer: '', message: `not valid JSON: ${(error as Error).message}`, expected: 'a JSON object' },
    };
  }
}
