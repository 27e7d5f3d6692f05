import type { BlobRange } from '../contracts/context-store';

/** A byte range resolved against a blob's size: `start` inclusive, `end` exclusive, `start <= end`. */
export interface ResolvedBlobRange {
  start: number;
  end: number;
}

/**
 * Resolves an optional {@link BlobRange} against a blob of `size` bytes: a missing `start` is 0, a
 * missing `end` is the size, both are clamped to `[0, size]`, and an inverted range is empty.
 * Returns `undefined` when a bound is negative or not an integer (the caller reports it).
 */
export function resolveBlobRange(range: BlobRange | undefined, size: number): ResolvedBlobRange | undefined {
  const start = range?.start ?? 0;
  const end = range?.end ?? size;
  if (!Number.isInteger(start) || !Number.isInteger(end) || start < 0 || end < 0) return undefined;
  const clampedEnd = Math.min(end, size);
  const clampedStart = Math.min(start, clampedEnd);
  return { start: clampedStart, end: clampedEnd };
}
