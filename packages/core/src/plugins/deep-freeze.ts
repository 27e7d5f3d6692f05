/**
 * Freezes an object graph in place and returns it. Used for what the loader hands out to be read
 * only: plugin manifests, agent manifests, validated configs.
 */
export function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const child of Object.values(value as Record<string, unknown>)) deepFreeze(child);
  }
  return value;
}
