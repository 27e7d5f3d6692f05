/** True when a `TypeError` comes from a write to a frozen (or non-extensible) object. */
export function isFrozenWriteError(error: unknown): boolean {
  return (
    error instanceof TypeError &&
    /read[- ]only|not extensible|Cannot (assign|add|delete|define)|frozen|object is not extensible/i.test(error.message)
  );
}
