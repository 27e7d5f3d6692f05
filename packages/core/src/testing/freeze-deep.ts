/**
 * Freezes a value and everything reachable from it (arrays, plain objects, class instances), so
 * that a strategy that writes to its inputs fails loudly: in strict-mode code (every TypeScript
 * module) a write to a frozen object throws a `TypeError`. Cycles are handled. Typed arrays,
 * `ArrayBuffer`s and `DataView`s cannot be frozen and are left as they are. Returns its argument.
 *
 * Used by the conformance suite on `history`, `tools` and `config` before every call, so that a
 * strategy that writes to its inputs fails with a TypeError.
 */
export function freezeDeep<T>(value: T): T {
  const seen = new Set<object>();
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const current = stack.pop();
    if (current === null || (typeof current !== 'object' && typeof current !== 'function')) continue;
    const object = current as object;
    if (seen.has(object)) continue;
    seen.add(object);
    if (ArrayBuffer.isView(object) || object instanceof ArrayBuffer) continue;
    for (const key of Reflect.ownKeys(object)) {
      const descriptor = Object.getOwnPropertyDescriptor(object, key);
      if (descriptor && 'value' in descriptor) stack.push(descriptor.value);
    }
    if (!Object.isFrozen(object)) Object.freeze(object);
  }
  return value;
}

/** True when a `TypeError` comes from a write to a frozen (or non-extensible) object. */
export function isFrozenWriteError(error: unknown): boolean {
  return (
    error instanceof TypeError &&
    /read[- ]only|not extensible|Cannot (assign|add|delete|define)|frozen|object is not extensible/i.test(error.message)
  );
}
