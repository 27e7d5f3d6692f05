/** Where computed values are kept by key: a `WeakMap` by object identity, or a `Map`. */
export interface ComputedValues<K, V> {
  get(key: K): V | undefined;
  set(key: K, value: V): unknown;
}

/**
 * The value kept in `values` for `key`, computed by `compute` and kept the first time it is asked for
 * (a value `undefined` is computed again every time).
 */
export function computedOnce<K, V>(values: ComputedValues<K, V>, key: K, compute: (key: K) => V): V {
  const kept = values.get(key);
  if (kept !== undefined) return kept;
  const value = compute(key);
  values.set(key, value);
  return value;
}
