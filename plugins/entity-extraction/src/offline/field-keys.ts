import type { JsonSchema } from '@ctxkit/core';

/**
 * Annotation on a field or a nested property listing more JSON keys whose values fill it (e.g.
 * `"reservations"` for `reservation_ids`, `"id"` for a payment method's `payment_id`). A tool
 * result's top-level value is read under the name of the function that produced it, so listing
 * `"get_user_details"` fills the field from that function's results. ajv ignores it (state schemas
 * compile with `strict: false`).
 */
export const OFFLINE_KEYS_KEYWORD = 'x-ctxkit-keys';

/**
 * Annotation on a field: `false` when the offline extractor must read it from JSON keys only, never
 * from free text (for enums of common words, such as `"yes"`/`"no"`).
 */
export const OFFLINE_TEXT_KEYWORD = 'x-ctxkit-text';

function singular(name: string): string | null {
  if (name.endsWith('ies')) return `${name.slice(0, -3)}y`;
  if (name.endsWith('s') && !name.endsWith('ss')) return name.slice(0, -1);
  return null;
}

/**
 * The JSON keys whose values fill a field or property: its name, its singular when it is an array
 * (`flight_numbers` ← `flight_number`), then the keys listed in `x-ctxkit-keys`.
 */
export function fieldKeys(name: string, schema: Readonly<JsonSchema>, isArray: boolean): string[] {
  const keys = [name];
  const one = isArray ? singular(name) : null;
  if (one) keys.push(one);
  const extra = schema[OFFLINE_KEYS_KEYWORD];
  if (Array.isArray(extra)) for (const key of extra) if (typeof key === 'string' && !keys.includes(key)) keys.push(key);
  return keys;
}
