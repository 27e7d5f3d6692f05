import { ConfigSchemaError, freezeDeep, type JsonSchema } from '@ctxkit/core';
import { createAjv, schemaDialect } from '@ctxkit/core/strategy-kit';

import type { EntityState } from '../state/entity-state';
import { formatAjvErrors } from './format-ajv-errors';

/** One top-level field of the state schema. */
export interface StateField {
  name: string;
  /** The property's subschema, as written. */
  schema: Readonly<JsonSchema>;
  /** Listed in the schema's top-level `required`: the payload names it while it is missing. */
  required: boolean;
  /** The field accepts `null`, so an explicit `null` in an answer clears it. */
  allowsNull: boolean;
}

/** A state schema compiled once, when the agent loads. */
export interface CompiledStateSchema {
  /** A frozen copy of the schema as given. */
  readonly schema: Readonly<JsonSchema>;
  /** Top-level properties, in declaration order. */
  readonly fields: readonly StateField[];
  /** Names of the top-level required fields, in schema order. */
  readonly required: readonly string[];
  /**
   * Validates a (partial) state: every present field must be valid; top-level `required` is not
   * enforced, because a state fills up over the conversation. Returns `"/pointer: message"` lines,
   * empty when valid.
   */
  validate(state: unknown): string[];
  /** True when `value` is valid for the field `name` (used by the offline extractor). */
  acceptsValue(name: string, value: unknown): boolean;
}

/**
 * Compiles the agent's state schema with ajv (at factory time, so a bad schema fails when the agent
 * loads, not mid-conversation).
 * @param owner who owns the schema, named in the error (`my-agent/std-entity-extraction-strategy`)
 * @throws ConfigSchemaError (`CTXKIT_CONFIG_SCHEMA_INVALID`) when the schema does not compile or
 *   does not describe an object with `properties`
 */
export function compileStateSchema(schema: Readonly<JsonSchema>, owner: string): CompiledStateSchema {
  const where = 'config.stateSchema';
  if (schema === null || typeof schema !== 'object' || Array.isArray(schema)) {
    throw new ConfigSchemaError(owner, where, 'the state schema must be a JSON Schema object');
  }
  const properties = schema['properties'];
  if (
    schema['type'] !== 'object' ||
    properties === null ||
    typeof properties !== 'object' ||
    Array.isArray(properties)
  ) {
    throw new ConfigSchemaError(
      owner,
      where,
      'the state schema must describe an object: "type": "object" with "properties"',
    );
  }
  const frozen = freezeDeep(structuredClone(schema) as JsonSchema);
  const partial = structuredClone(schema) as JsonSchema;
  delete partial['required'];
  const ajv = createAjv('data', schemaDialect(schema));
  let validator: ReturnType<typeof ajv.compile>;
  try {
    validator = ajv.compile(partial);
  } catch (error) {
    throw new ConfigSchemaError(owner, where, error instanceof Error ? error.message : String(error));
  }
  const requiredList = Array.isArray(schema['required'])
    ? (schema['required'] as unknown[]).filter((name): name is string => typeof name === 'string')
    : [];
  const validate = (state: unknown): string[] => (validator(state) ? [] : formatAjvErrors(validator.errors));
  const acceptsValue = (name: string, value: unknown): boolean => validator({ [name]: value } as EntityState) === true;
  const fields: StateField[] = Object.entries(properties as Record<string, JsonSchema>).map(([name, fieldSchema]) => ({
    name,
    schema: (frozen['properties'] as Record<string, JsonSchema>)[name] ?? fieldSchema,
    required: requiredList.includes(name),
    allowsNull: acceptsValue(name, null),
  }));
  const unknownRequired = requiredList.filter((name) => !fields.some((field) => field.name === name));
  if (unknownRequired.length > 0) {
    throw new ConfigSchemaError(
      owner,
      where,
      `"required" names fields that are not in "properties": ${unknownRequired.join(', ')}`,
    );
  }
  return { schema: frozen, fields, required: requiredList, validate, acceptsValue };
}
