import { canonicalJson } from '../extraction/merge-state';

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** The identity of an item: its identity properties when it has them all, else the whole item. */
function identityOf(item: unknown, identityKeys: readonly string[]): string {
  if (identityKeys.length > 0 && isPlainObject(item) && identityKeys.every((key) => item[key] !== undefined)) {
    return `id:${canonicalJson(identityKeys.map((key) => item[key]))}`;
  }
  return `whole:${canonicalJson(item)}`;
}

/**
 * The items of an array field after adding `additions` (oldest first) to `current`: a new item is
 * appended; an object item with the same identity (values of `identityKeys`, the item schema's
 * `required`) as one already there updates it in place (its properties over the older ones); an
 * equal item changes nothing. When `maxItems` is exceeded, the oldest items are removed. Neither
 * input is modified.
 */
export function mergeArrayItems(
  current: readonly unknown[],
  additions: readonly unknown[],
  identityKeys: readonly string[],
  maxItems: number | undefined,
): unknown[] {
  const merged = current.map((item) => structuredClone(item));
  const positions = new Map<string, number>();
  merged.forEach((item, position) => positions.set(identityOf(item, identityKeys), position));
  for (const addition of additions) {
    const identity = identityOf(addition, identityKeys);
    const at = positions.get(identity);
    if (at === undefined) {
      positions.set(identity, merged.length);
      merged.push(structuredClone(addition));
    } else if (isPlainObject(merged[at]) && isPlainObject(addition)) {
      merged[at] = { ...(merged[at] as Record<string, unknown>), ...structuredClone(addition) };
    }
  }
  return maxItems !== undefined && merged.length > maxItems ? merged.slice(merged.length - maxItems) : merged;
}
