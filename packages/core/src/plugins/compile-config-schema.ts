import type { ValidateFunction } from 'ajv';

import { ConfigSchemaError } from '../errors/config-schema-error';
import { createAjv, schemaDialect } from './create-ajv';

const cache = new Map<string, ValidateFunction>();
const CACHE_LIMIT = 256;

/**
 * Compiles a user JSON Schema (a plugin's `configSchema`, an agent's entity state schema) once:
 * first checked against the JSON Schema meta-schema (draft-07, or 2020-12 when its `$schema` says
 * so), then compiled with `useDefaults`. Compiled validators are cached by the schema's JSON text,
 * so the same schema is compiled once per process. Each schema gets its own ajv instance, so two
 * plugins that reuse an `$id` never collide.
 *
 * The returned validator applies defaults to the object it validates: only ever pass a copy.
 * @param owner who wrote the schema, for the message (a plugin id)
 * @param file where the schema is (`plugins/x/plugin.json#/configSchema`)
 * @throws ConfigSchemaError (`CTXKIT_CONFIG_SCHEMA_INVALID`) when the schema is not valid JSON Schema
 */
export function compileConfigSchema(schema: unknown, owner: string, file: string): ValidateFunction {
  if (typeof schema !== 'object' || schema === null || Array.isArray(schema)) {
    throw new ConfigSchemaError(owner, file, 'a JSON Schema must be an object');
  }
  const text = JSON.stringify(schema);
  const cached = cache.get(text);
  if (cached) return cached;
  const ajv = createAjv('user', schemaDialect(schema));
  if (!ajv.validateSchema(schema as object)) {
    const problems = (ajv.errors ?? []).map(
      (error) => `${error.instancePath || '/'} ${error.message ?? error.keyword}`,
    );
    throw new ConfigSchemaError(owner, file, problems.join('; ') || 'does not match the JSON Schema meta-schema');
  }
  let validate: ValidateFunction;
  try {
    validate = ajv.compile(structuredClone(schema) as object);
  } catch (cause) {
    throw new ConfigSchemaError(owner, file, cause instanceof Error ? cause.message : String(cause));
  }
  if (cache.size >= CACHE_LIMIT) cache.delete(cache.keys().next().value as string);
  cache.set(text, validate);
  return validate;
}
