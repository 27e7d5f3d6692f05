/**
 * Freezes a value and everything reachable from it through own data properties (arrays, plain
 * objects, class instances; symbol-keyed and non-enumerable properties too), so that a write to any
 * part of it fails loudly: in strict-mode code (every TypeScript module) it throws a `TypeError`.
 * Objects that are already frozen are walked as well, since their parts may not be. Cycles and
 * shared objects are visited once; getters are not called. Typed arrays, `ArrayBuffer`s and
 * `DataView`s cannot be frozen and are left as they are. Returns its argument.
 *
 * Strategies receive immutable histories: the kernel freezes every message it keeps with this, and
 * the conformance suite freezes `history`, `tools` and `config` before every call. Freeze only what
 * you own: the value is frozen in place, not copied.
 */
export function freezeDeep<T>(value: T): T {
  if (value === null || (typeof value !== 'object' && typeof value !== 'function')) return value;
  const seen = new Set<object>();
  const stack: object[] = [value as object];
  while (stack.length > 0) {
    const object = stack.pop()!;
    if (seen.has(object)) continue;
    seen.add(object);
    if (ArrayBuffer.isView(object) || object instanceof ArrayBuffer) continue;
    for (const key of Reflect.ownKeys(object)) {
      const descriptor = Reflect.getOwnPropertyDescriptor(object, key);
      if (descriptor === undefined || !('value' in descriptor)) continue;
      const child: unknown = descriptor.value;
      if (child !== null && (typeof child === 'object' || typeof child === 'function')) stack.push(child);
    }
    Object.freeze(object);
  }
  return value;
}
