/** Lowercase, punctuation and symbols removed, runs of whitespace collapsed to one space. */
export function normaliseText(text: string): string {
  return text
    .toLowerCase()
    .replace(/[\p{P}\p{S}]+/gu, '')
    .replace(/\s+/g, ' ')
    .trim();
}
