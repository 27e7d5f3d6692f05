import type { TokenCounter } from '@ctxkit/core';

/**
 * Keeps the head of `text` so that `measure(result)` stays within `maxTokens`, ending with a visible
 * marker that says how much was kept. Never splits a surrogate pair. Returns `null` when not even
 * the marker fits.
 * @param measure tokens of a candidate text in its final form (e.g. as a whole message)
 */
export function truncateToTokens(text: string, maxTokens: number, measure: (candidate: string) => number): string | null {
  if (measure(text) <= maxTokens) return text;
  const marker = (kept: number) => `\n[... truncated by std-entity-extraction-strategy: ${kept} of ${text.length} characters kept; the full text is in the history]`;
  if (measure(marker(0)) > maxTokens) return null;
  let low = 0;
  let high = text.length;
  while (low < high) {
    const mid = Math.ceil((low + high) / 2);
    let cut = mid;
    const code = text.charCodeAt(cut - 1);
    if (code >= 0xd800 && code <= 0xdbff) cut--;
    if (measure(text.slice(0, cut) + marker(cut)) <= maxTokens) low = mid;
    else high = mid - 1;
  }
  let cut = low;
  const code = text.charCodeAt(cut - 1);
  if (cut > 0 && code >= 0xd800 && code <= 0xdbff) cut--;
  return text.slice(0, cut) + marker(cut);
}

/** Token measure of a text as-is with a counter. */
export function textMeasure(counter: TokenCounter): (candidate: string) => number {
  return (candidate) => counter.count(candidate);
}
