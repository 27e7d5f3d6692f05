function isNumberSequence(value: unknown): value is ReadonlyArray<number> {
  if (value === null || typeof value !== 'object' || typeof (value as { length?: unknown }).length !== 'number')
    return false;
  const sequence = value as ArrayLike<unknown>;
  if (sequence.length === 0) return false;
  for (let index = 0; index < sequence.length; index++) {
    const item = sequence[index];
    if (typeof item !== 'number' || !Number.isFinite(item)) return false;
  }
  return true;
}

/**
 * Cosine similarity of two vectors, or `undefined` when either is not a non-empty sequence of
 * finite numbers, their lengths differ, or a vector is all zeros.
 */
export function cosineSimilarity(a: unknown, b: unknown): number | undefined {
  if (!isNumberSequence(a) || !isNumberSequence(b) || a.length !== b.length) return undefined;
  let dot = 0;
  let normA = 0;
  let normB = 0;
  for (let index = 0; index < a.length; index++) {
    dot += a[index]! * b[index]!;
    normA += a[index]! * a[index]!;
    normB += b[index]! * b[index]!;
  }
  if (normA === 0 || normB === 0) return undefined;
  return dot / Math.sqrt(normA * normB);
}
