import { Ajv, type Options } from 'ajv';
import { Ajv2020 } from 'ajv/dist/2020';
import addFormats from 'ajv-formats';

/** An ajv instance (draft-07 or 2020-12). */
export type AjvInstance = Ajv | Ajv2020;

/** The `$schema` of JSON Schema 2020-12: a user schema that names it is compiled by the 2020 dialect. */
export const JSON_SCHEMA_2020_12 = 'https://json-schema.org/draft/2020-12/schema';

/**
 * The only place ajv is configured.
 *
 * - `'ctxkit'`: for ctxkit's own schemas (the two manifest schemas). Strict mode on, so a typo in
 *   a ctxkit schema fails at compile time; `allErrors` so that users see every problem at once;
 *   `verbose` so that issues can say what was expected.
 * - `'user'`: for schemas written by plugin authors and agents (`configSchema`, entity state
 *   schemas). Lax enough for schemas in the wild (unknown keywords such as `examples` or `x-*`
 *   annotations are allowed) but the schema is still checked against the JSON Schema meta-schema,
 *   so an invalid schema is rejected. `useDefaults` applies `default`s: only ever validate a copy.
 *   Draft-07 unless `dialect` is `'2020-12'`.
 * - `'data'`: the same as `'user'` without `useDefaults`, for validating data that must come out
 *   unchanged (an extracted entity state checked against the agent's state schema).
 *
 * Both add the ajv-formats formats (`date`, `date-time`, `email`, `uri`, ...).
 */
export function createAjv(
  purpose: 'ctxkit' | 'user' | 'data',
  dialect: 'draft-07' | '2020-12' = 'draft-07',
): AjvInstance {
  const common: Options = { allErrors: true, verbose: true, validateSchema: true };
  const options: Options =
    purpose === 'ctxkit'
      ? { ...common, strict: true }
      : { ...common, strict: false, useDefaults: purpose === 'user', validateFormats: true };
  const ajv = dialect === '2020-12' ? new Ajv2020(options) : new Ajv(options);
  addFormats(ajv);
  return ajv;
}

/** The dialect a user schema asks for through its `$schema` (draft-07 when absent or unknown). */
export function schemaDialect(schema: unknown): 'draft-07' | '2020-12' {
  const declared =
    typeof schema === 'object' && schema !== null ? (schema as { $schema?: unknown }).$schema : undefined;
  return typeof declared === 'string' && declared.replace(/#$/, '') === JSON_SCHEMA_2020_12 ? '2020-12' : 'draft-07';
}
