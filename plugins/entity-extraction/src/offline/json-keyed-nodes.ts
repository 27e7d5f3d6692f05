import type { JsonKeyScreen } from './json-key-screen';

/** A value found under a key of a JSON text: a string, number or boolean, or an object. */
export interface KeyedNode {
  key: string;
  value: string | number | boolean | Record<string, unknown>;
  /** Order of the node in a depth-first walk (for "newest mention wins"). */
  position: number;
}

/**
 * The key/value nodes of a JSON text, walked depth-first (objects and arrays of any depth). Each
 * object member is reported under its key (objects too, then their own members); the items of an
 * array are reported under the array's key (nested arrays flattened). The top-level value is
 * reported under `rootKey` when one is given (a tool result under its function's name). Returns an
 * empty list when the text is not a JSON object or array, and, given a `screen`, when the text
 * cannot hold a member under one of its keys (the text is then not parsed).
 */
export function jsonKeyedNodes(text: string, rootKey: string | null = null, screen?: JsonKeyScreen): KeyedNode[] {
  const trimmed = text.trim();
  if (!(trimmed.startsWith('{') || trimmed.startsWith('['))) return [];
  if (screen && !screen.mayHold(trimmed, rootKey)) return [];
  let parsed: unknown;
  try {
    parsed = JSON.parse(trimmed);
  } catch {
    return [];
  }
  const out: KeyedNode[] = [];
  let position = 0;
  const walk = (value: unknown, key: string | null): void => {
    if (Array.isArray(value)) {
      for (const item of value) walk(item, key);
      return;
    }
    if (value !== null && typeof value === 'object') {
      if (key !== null) out.push({ key, value: value as Record<string, unknown>, position: position++ });
      for (const [childKey, child] of Object.entries(value as Record<string, unknown>)) walk(child, childKey);
      return;
    }
    if (key !== null && (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean')) {
      out.push({ key, value, position: position++ });
    }
  };
  walk(parsed, rootKey);
  return out;
}
