import { base64Of, isBytes, isUrlObject } from '../file-data';

/**
 * A deep copy that compares by value in `toEqual`: `URL` objects become `URL(<href>)` strings and
 * bytes `bytes(<base64>)` (jest compares neither by content), `undefined` properties are left out.
 */
export function plain(value: unknown): unknown {
  if (isUrlObject(value)) return `URL(${value.href})`;
  if (isBytes(value)) return `bytes(${base64Of(value)})`;
  if (Array.isArray(value)) return value.map(plain);
  if (typeof value === 'object' && value !== null) {
    return Object.fromEntries(
      Object.entries(value)
        .filter(([, entry]) => entry !== undefined)
        .map(([key, entry]) => [key, plain(entry)]),
    );
  }
  return value;
}
