import type { JsonSchema } from '@ctxkit/core';
import type { StateField } from '../schema/state-schema';
import { shapeRegex } from './shape-regex';

/** Formats the offline extractor recognises in text (validated by ajv-formats). */
export const OFFLINE_FORMATS: readonly string[] = ['date', 'date-time', 'email', 'time'];

/**
 * Annotation on a top-level field listing more JSON keys whose values fill it (e.g. `"reservations"`
 * for `reservation_ids`). ajv ignores it (state schemas compile with `strict: false`).
 */
export const OFFLINE_KEYS_KEYWORD = 'x-ctxkit-keys';

/**
 * What makes a field recognisable without a model: its `enum`, `pattern`, `format` or `examples`,
 * on the field itself or, for an array, on its `items`.
 */
export interface FieldRecognizer {
  field: string;
  /** The field is an array of recognisable items (filled by union, newest last). */
  isArray: boolean;
  /** `maxItems` of an array field. */
  maxItems: number | undefined;
  enumValues: ReadonlyArray<string | number> | undefined;
  /** The field (or item) has a `pattern` or a supported `format`: ajv decides alone. */
  validatedBySchema: boolean;
  /** Shapes derived from `examples` (used when there is no pattern or format). */
  shapes: RegExp[];
  /** Names under which the value appears in JSON text: the field name, its singular for arrays, and `x-ctxkit-keys`. */
  keys: string[];
}

function resolveLocalRef(schema: JsonSchema, root: Readonly<JsonSchema>): JsonSchema {
  const ref = schema['$ref'];
  if (typeof ref !== 'string' || !ref.startsWith('#/')) return schema;
  let node: unknown = root;
  for (const part of ref.slice(2).split('/')) {
    node = node && typeof node === 'object' ? (node as Record<string, unknown>)[part.replace(/~1/g, '/').replace(/~0/g, '~')] : undefined;
  }
  return node && typeof node === 'object' ? (node as JsonSchema) : schema;
}

function typeIncludes(schema: JsonSchema, type: string): boolean {
  const declared = schema['type'];
  return declared === type || (Array.isArray(declared) && declared.includes(type));
}

function singular(name: string): string | null {
  if (name.endsWith('ies')) return `${name.slice(0, -3)}y`;
  if (name.endsWith('s') && !name.endsWith('ss')) return name.slice(0, -1);
  return null;
}

/**
 * The recognizer of a top-level field, or `null` when the schema gives nothing to recognise it by
 * (free text, booleans, objects, arrays of objects): such fields are left to a language model.
 */
export function fieldRecognizer(field: StateField, root: Readonly<JsonSchema>): FieldRecognizer | null {
  let schema = resolveLocalRef(field.schema as JsonSchema, root);
  const isArray = typeIncludes(schema, 'array');
  const maxItems = isArray && typeof schema['maxItems'] === 'number' ? (schema['maxItems'] as number) : undefined;
  if (isArray) {
    const items = schema['items'];
    if (!items || typeof items !== 'object' || Array.isArray(items)) return null;
    schema = resolveLocalRef(items as JsonSchema, root);
  }
  const scalar = typeIncludes(schema, 'string') || typeIncludes(schema, 'number') || typeIncludes(schema, 'integer') || Array.isArray(schema['enum']);
  if (!scalar) return null;
  const enumValues = Array.isArray(schema['enum'])
    ? (schema['enum'] as unknown[]).filter((value): value is string | number => typeof value === 'string' || typeof value === 'number')
    : undefined;
  const validatedBySchema = typeof schema['pattern'] === 'string' || (typeof schema['format'] === 'string' && OFFLINE_FORMATS.includes(schema['format'] as string));
  const examples = Array.isArray(schema['examples']) ? (schema['examples'] as unknown[]) : [];
  const shapes = examples
    .filter((example): example is string => typeof example === 'string')
    .map(shapeRegex)
    .filter((regex): regex is RegExp => regex !== null);
  if (!enumValues?.length && !validatedBySchema && shapes.length === 0) return null;
  const keys = [field.name];
  const one = isArray ? singular(field.name) : null;
  if (one) keys.push(one);
  const extraKeys = (field.schema as JsonSchema)[OFFLINE_KEYS_KEYWORD];
  if (Array.isArray(extraKeys)) for (const key of extraKeys) if (typeof key === 'string' && !keys.includes(key)) keys.push(key);
  return { field: field.name, isArray, maxItems, enumValues: enumValues?.length ? enumValues : undefined, validatedBySchema, shapes, keys };
}
