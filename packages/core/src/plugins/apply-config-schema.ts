import { ConfigValidationError } from '../errors/config-validation-error';
import { compileConfigSchema } from './compile-config-schema';
import { toManifestIssues } from './schema-issues';

/** Where a config and its schema come from, for the issues of an invalid config. */
export interface ConfigSource {
  /** The file holding the config (`<inline>` for an object). @default '<inline>' */
  file?: string;
  /** The file and pointer of the schema. @default 'plugin.json#/configSchema' */
  schemaFile?: string;
  /** JSON pointer of the config inside its file (`/contextStrategy/config` in an agent manifest). @default '' */
  pointer?: string;
}

/**
 * Validates a strategy config against its plugin's `configSchema` exactly as the loader does
 * (core's one ajv setup, compiled once per schema and cached) and returns a deep copy with the
 * schema's defaults applied; the caller's object is never touched, so a frozen config is fine. A
 * plugin's factory calls it so that direct callers of `createStrategy` get the loader's defaults and
 * errors, with the schema as the one source of both.
 * @param owner the plugin id, for the messages
 * @param config the config (`undefined` means `{}`)
 * @throws ConfigSchemaError (`CTXKIT_CONFIG_SCHEMA_INVALID`) when the schema is not valid JSON Schema
 * @throws ConfigValidationError (`CTXKIT_CONFIG_INVALID`) listing every issue with file, JSON pointer and expectation
 */
export function applyConfigSchema(
  owner: string,
  schema: unknown,
  config: unknown,
  source: ConfigSource = {},
): Record<string, unknown> {
  const file = source.file ?? '<inline>';
  const pointer = source.pointer ?? '';
  const validate = compileConfigSchema(schema, owner, source.schemaFile ?? 'plugin.json#/configSchema');
  if (config !== undefined && (typeof config !== 'object' || config === null || Array.isArray(config))) {
    throw new ConfigValidationError(owner, file, [
      { file, pointer, message: 'the config must be an object', expected: 'type object' },
    ]);
  }
  let copy: Record<string, unknown>;
  try {
    copy = structuredClone(config ?? {}) as Record<string, unknown>;
  } catch {
    throw new ConfigValidationError(owner, file, [
      {
        file,
        pointer,
        message: 'the config holds values that are not JSON (functions, symbols)',
        expected: 'JSON data',
      },
    ]);
  }
  if (!validate(copy)) throw new ConfigValidationError(owner, file, toManifestIssues(validate.errors, file, pointer));
  return copy;
}
