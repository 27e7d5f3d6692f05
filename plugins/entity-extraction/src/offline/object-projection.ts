import type { JsonSchema } from '@ctxkit/core';

import { fieldKeys } from './field-keys';
import { isNumericSchema, itemsSchema, objectProperties, resolveLocalRef, typeIncludes } from './schema-node';

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** A JSON scalar as the subschema's type wants it (`7447` → `"7447"` for a string), else `undefined`. */
function projectScalar(value: unknown, schema: Readonly<JsonSchema>): unknown {
  if (Array.isArray(schema['enum'])) {
    const allowed = schema['enum'] as unknown[];
    if (allowed.includes(value)) return value;
    if (typeof value === 'number' && allowed.includes(String(value))) return String(value);
    return undefined;
  }
  if (typeof value === 'boolean') return typeIncludes(schema, 'boolean') ? value : undefined;
  if (typeof value === 'number') {
    if (typeIncludes(schema, 'number') || (typeIncludes(schema, 'integer') && Number.isInteger(value))) return value;
    return typeIncludes(schema, 'string') ? String(value) : undefined;
  }
  if (typeof value === 'string') {
    if (typeIncludes(schema, 'string')) return value;
    if (isNumericSchema(schema) && /^-?[0-9]+(\.[0-9]+)?$/.test(value)) return Number(value);
  }
  return undefined;
}

/**
 * The items of an array subschema found in `value`: each item of a JSON array, or, for a JSON
 * object used as a map (`{"credit_card_1": {...}, "gift_card_2": {...}}`), each of its values.
 */
function projectArray(value: unknown, schema: Readonly<JsonSchema>, root: Readonly<JsonSchema>): unknown[] | undefined {
  const items = itemsSchema(schema, root);
  if (!items) return undefined;
  const raw = Array.isArray(value) ? value : isPlainObject(value) ? Object.values(value) : [value];
  const projected = raw.map((item) => projectOnSchema(item, items, root)).filter((item) => item !== undefined);
  return projected.length > 0 ? projected : undefined;
}

/**
 * A JSON value reshaped to a subschema of the state, or `undefined` when nothing of it fits: an
 * object keeps the properties the subschema declares (each found under its name or a key of its
 * `x-ctxkit-keys`, projected in turn; unknown members dropped); an array keeps its items that fit;
 * a scalar is converted to the declared type. The result is not validated: the caller checks it
 * against the schema with ajv.
 */
export function projectOnSchema(value: unknown, subschema: Readonly<JsonSchema>, root: Readonly<JsonSchema>): unknown {
  const schema = resolveLocalRef(subschema, root);
  if (typeIncludes(schema, 'object') && objectProperties(schema, root).length > 0) {
    if (!isPlainObject(value)) return undefined;
    const projected: Record<string, unknown> = {};
    for (const [name, child] of objectProperties(schema, root)) {
      const keys = fieldKeys(name, child, false);
      const key = keys.find((candidate) => value[candidate] !== undefined && value[candidate] !== null);
      if (key === undefined) continue;
      const childValue = projectOnSchema(value[key], child, root);
      if (childValue !== undefined) projected[name] = childValue;
    }
    return Object.keys(projected).length > 0 ? projected : undefined;
  }
  if (typeIncludes(schema, 'array')) return projectArray(value, schema, root);
  if (value === null || typeof value === 'object') return undefined;
  return projectScalar(value, schema);
}
