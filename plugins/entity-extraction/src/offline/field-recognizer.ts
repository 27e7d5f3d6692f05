import type { JsonSchema } from '@ctxkit/core';

import type { StateField } from '../schema/state-schema';
import { fieldKeys, OFFLINE_TEXT_KEYWORD } from './field-keys';
import { isNumericSchema, itemsSchema, objectProperties, resolveLocalRef, typeIncludes } from './schema-node';
import { shapeRegex } from './shape-regex';

export { OFFLINE_KEYS_KEYWORD, OFFLINE_TEXT_KEYWORD } from './field-keys';

/** Formats the offline extractor recognises in text (validated by ajv-formats). */
export const OFFLINE_FORMATS: readonly string[] = ['date', 'date-time', 'email', 'time'];

interface RecognizerBase {
  field: string;
  /** The field is an array of recognisable items (filled by union, newest last). */
  isArray: boolean;
  /** `maxItems` of an array field. */
  maxItems: number | undefined;
  /** Names under which the value appears in JSON text: the field name, its singular for arrays, and `x-ctxkit-keys`. */
  keys: string[];
}

/**
 * A string or number field (or array of them) made recognisable by its `enum`, `pattern`, `format`
 * or `examples`, on the field itself or, for an array, on its `items`.
 */
export interface ScalarFieldRecognizer extends RecognizerBase {
  kind: 'scalar';
  enumValues: ReadonlyArray<string | number> | undefined;
  /** The field (or item) has a `pattern` or a supported `format`: ajv decides alone. */
  validatedBySchema: boolean;
  /** Shapes derived from `examples` (used when there is no pattern or format). */
  shapes: RegExp[];
  /**
   * The shapes a word-like token can have: a shape with white space (from an example with a space) never matches one.
   */
  tokenShapes: RegExp[];
  /**
   * The field's (or item's) own `pattern`, compiled as ajv compiles it: a string that does not
   * match it is refused without running the schema's validator (which would refuse it too).
   * `undefined` without a pattern, or when the schema reaches the field through a `$ref`.
   */
  pattern: RegExp | undefined;
  /**
   * The pattern when it has no anchors or lookarounds (what it matches does not depend on the text
   * around it): a text it does not match holds no token that it matches.
   */
  textPattern: RegExp | undefined;
  /** The value is a number (text tokens are converted). */
  numeric: boolean;
  /** The value has `format: "date"`: dates written in words count too. */
  isDate: boolean;
  /**
   * Free text is searched for the field: false with `x-ctxkit-text: false`, and for a field without
   * enum, pattern, format or examples (free text, plain numbers), which only JSON keys fill.
   */
  readsText: boolean;
}

/**
 * An object field, or an array of objects, filled from JSON objects found under its keys: each
 * object is projected onto the (item) schema's properties.
 */
export interface ObjectFieldRecognizer extends RecognizerBase {
  kind: 'object';
  /** The object (or item) subschema, `$ref` resolved. */
  schema: JsonSchema;
  /**
   * For arrays: the item's `required` properties, which identify an item (a newer object with the
   * same values updates it instead of being added). Empty: items are compared whole.
   */
  identityKeys: string[];
}

/** What makes a field fillable without a model. */
export type FieldRecognizer = ScalarFieldRecognizer | ObjectFieldRecognizer;

function hasRef(schema: Readonly<JsonSchema> | null): boolean {
  return schema !== null && typeof schema === 'object' && schema['$ref'] !== undefined;
}

/** A `pattern` as ajv tests it (a Unicode regular expression, unanchored); `undefined` when there is none. */
function ajvPattern(pattern: unknown): RegExp | undefined {
  if (typeof pattern !== 'string') return undefined;
  try {
    return new RegExp(pattern, 'u');
  } catch {
    return undefined;
  }
}

/**
 * The recognizer of a top-level field, or `null` for a field that is neither a string, a number, an
 * enum nor an object with properties (booleans, arrays of arrays): such fields are left to a
 * language model. A string or number field without enum, pattern, format or examples is filled from
 * JSON keys only.
 */
export function fieldRecognizer(field: StateField, root: Readonly<JsonSchema>): FieldRecognizer | null {
  const declared = resolveLocalRef(field.schema as JsonSchema, root);
  const isArray = typeIncludes(declared, 'array');
  const maxItems = isArray && typeof declared['maxItems'] === 'number' ? (declared['maxItems'] as number) : undefined;
  const schema = isArray ? itemsSchema(declared, root) : declared;
  if (!schema) return null;
  const keys = fieldKeys(field.name, field.schema as JsonSchema, isArray);
  if (typeIncludes(schema, 'object') && objectProperties(schema, root).length > 0) {
    const required = Array.isArray(schema['required'])
      ? (schema['required'] as unknown[]).filter((name): name is string => typeof name === 'string')
      : [];
    return {
      kind: 'object',
      field: field.name,
      isArray,
      maxItems,
      keys,
      schema,
      identityKeys: isArray ? required : [],
    };
  }
  const scalar =
    typeIncludes(schema, 'string') ||
    typeIncludes(schema, 'number') ||
    typeIncludes(schema, 'integer') ||
    Array.isArray(schema['enum']);
  if (!scalar) return null;
  const enumValues = Array.isArray(schema['enum'])
    ? (schema['enum'] as unknown[]).filter(
        (value): value is string | number => typeof value === 'string' || typeof value === 'number',
      )
    : undefined;
  const validatedBySchema =
    typeof schema['pattern'] === 'string' ||
    (typeof schema['format'] === 'string' && OFFLINE_FORMATS.includes(schema['format'] as string));
  const examples = Array.isArray(schema['examples']) ? (schema['examples'] as unknown[]) : [];
  const reachedThroughRef =
    hasRef(field.schema) ||
    (isArray && typeof declared['items'] === 'object' && hasRef(declared['items'] as JsonSchema));
  const examplesInText = examples.filter((example): example is string => typeof example === 'string');
  const shapes = examplesInText.map(shapeRegex).filter((regex): regex is RegExp => regex !== null);
  const tokenShapes = examplesInText
    .filter((example) => !/\s/.test(example))
    .map(shapeRegex)
    .filter((regex): regex is RegExp => regex !== null);
  const pattern = reachedThroughRef ? undefined : ajvPattern(schema['pattern']);
  // Nothing to recognise the value by in free text: it is still taken under its JSON keys (ajv decides).
  const keysOnly = !enumValues?.length && !validatedBySchema && shapes.length === 0;
  return {
    kind: 'scalar',
    field: field.name,
    isArray,
    maxItems,
    keys,
    enumValues: enumValues?.length ? enumValues : undefined,
    validatedBySchema: validatedBySchema || keysOnly,
    shapes,
    tokenShapes,
    pattern,
    textPattern: pattern && !/[\^$]|\\[bB]|\(\?<?[=!]/.test(pattern.source) ? pattern : undefined,
    numeric: isNumericSchema(schema),
    isDate: schema['format'] === 'date',
    readsText: !keysOnly && (field.schema as JsonSchema)[OFFLINE_TEXT_KEYWORD] !== false,
  };
}
