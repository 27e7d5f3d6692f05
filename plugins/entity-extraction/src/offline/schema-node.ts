import type { JsonSchema } from '@ctxkit/core';

/**
 * A subschema with a local `$ref` (`#/...`) resolved against the root schema, the keywords written
 * beside the `$ref` (description, `x-ctxkit-keys`) kept over the target's; others as given.
 */
export function resolveLocalRef(schema: Readonly<JsonSchema>, root: Readonly<JsonSchema>): JsonSchema {
  const ref = schema['$ref'];
  if (typeof ref !== 'string' || !ref.startsWith('#/')) return schema as JsonSchema;
  let node: unknown = root;
  for (const part of ref.slice(2).split('/')) {
    node =
      node && typeof node === 'object'
        ? (node as Record<string, unknown>)[part.replace(/~1/g, '/').replace(/~0/g, '~')]
        : undefined;
  }
  if (!node || typeof node !== 'object') return schema as JsonSchema;
  const { $ref: _ref, ...beside } = schema as Record<string, unknown>;
  return { ...(node as JsonSchema), ...beside } as JsonSchema;
}

/** True when the subschema's `type` is `type` or a list that includes it. */
export function typeIncludes(schema: Readonly<JsonSchema>, type: string): boolean {
  const declared = schema['type'];
  return declared === type || (Array.isArray(declared) && declared.includes(type));
}

/** True for a subschema that accepts numbers and not strings. */
export function isNumericSchema(schema: Readonly<JsonSchema>): boolean {
  return !typeIncludes(schema, 'string') && (typeIncludes(schema, 'number') || typeIncludes(schema, 'integer'));
}

/** The `items` subschema of an array subschema (resolved), or `null` when it has no single one. */
export function itemsSchema(schema: Readonly<JsonSchema>, root: Readonly<JsonSchema>): JsonSchema | null {
  const items = schema['items'];
  if (!items || typeof items !== 'object' || Array.isArray(items)) return null;
  return resolveLocalRef(items as JsonSchema, root);
}

/** The `properties` of an object subschema, each resolved; empty when it has none. */
export function objectProperties(
  schema: Readonly<JsonSchema>,
  root: Readonly<JsonSchema>,
): Array<[string, JsonSchema]> {
  const properties = schema['properties'];
  if (!properties || typeof properties !== 'object' || Array.isArray(properties)) return [];
  return Object.entries(properties as Record<string, JsonSchema>).map(([name, child]) => [
    name,
    resolveLocalRef(child, root),
  ]);
}
