/** Longest text kept as its own key by {@link RecentTextCounts}; longer texts are keyed by digest. */
export const TEXT_KEY_MAX_CHARS = 16_384;

/** Default bound of a {@link RecentTextCounts}, in characters kept (8 MiB of UTF-16). */
export const DEFAULT_TEXT_COUNT_CHARS = 4_194_304;

/**
 * Token counts of recently counted short texts, keyed by the text itself: the engine hashes a
 * string natively and remembers the hash on the string, so the system prompt, tool schemas and
 * history texts counted again on every call cost a map lookup, not a digest of their content.
 * Bounded by the characters it keeps; the oldest texts leave first.
 */
export class RecentTextCounts {
  private readonly entries = new Map<string, number>();
  private chars = 0;

  constructor(readonly maxChars: number = DEFAULT_TEXT_COUNT_CHARS) {
    if (!(maxChars >= TEXT_KEY_MAX_CHARS))
      throw new RangeError(`RecentTextCounts: maxChars must be at least ${TEXT_KEY_MAX_CHARS} (got ${maxChars})`);
  }

  get size(): number {
    return this.entries.size;
  }

  /** Characters held. */
  get heldChars(): number {
    return this.chars;
  }

  get(text: string): number | undefined {
    return this.entries.get(text);
  }

  /** Keeps the count of a text of at most {@link TEXT_KEY_MAX_CHARS} characters (longer texts are ignored). */
  set(text: string, tokens: number): void {
    if (text.length > TEXT_KEY_MAX_CHARS || this.entries.has(text)) return;
    while (this.chars + text.length > this.maxChars) {
      const oldest = this.entries.keys().next();
      if (oldest.done) break;
      this.entries.delete(oldest.value);
      this.chars -= oldest.value.length;
    }
    this.entries.set(text, tokens);
    this.chars += text.length;
  }
}
