/**
 * Moves a cut position off the middle of a surrogate pair (so that no half of an emoji or rare CJK
 * character is left at either side). `direction` says which way to move when it has to.
 */
export function surrogateSafeCut(text: string, index: number, direction: 'down' | 'up' = 'down'): number {
  if (index <= 0) return 0;
  if (index >= text.length) return text.length;
  const before = text.charCodeAt(index - 1);
  const at = text.charCodeAt(index);
  if (before >= 0xd800 && before <= 0xdbff && at >= 0xdc00 && at <= 0xdfff)
    return direction === 'down' ? index - 1 : index + 1;
  return index;
}

/** Counts line feeds in `text[from, to)`, without allocating. */
export function countLineFeeds(text: string, from = 0, to = text.length): number {
  let lines = 0;
  let index = text.indexOf('\n', from);
  while (index !== -1 && index < to) {
    lines++;
    index = text.indexOf('\n', index + 1);
  }
  return lines;
}
