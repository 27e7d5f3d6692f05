/**
 * The `toolOutputCache` section of the config, validated against `plugin.json`'s `configSchema`,
 * which holds its defaults (the `@default`s below document them; a unit test keeps the fields and
 * the schema's in step).
 * @see docs/strategies/tool-output-cache.md
 */
export interface ToolOutputCacheConfig {
  /**
   * Cache tool outputs, show in-context views, trim old outputs to placeholders.
   * @default true
   */
  enabled: boolean;
  /**
   * Token budget for all tool outputs in the payload (older outputs are replaced in steps that
   * reclaim at least `minReclaimTokens`). `null`: derived from the model's context window,
   * `clamp(window × 0.25, 20 000, 60 000)`.
   * @default null
   */
  contextBudgetTokens: number | null;
  /**
   * Largest in-context view of one tool output, in UTF-8 bytes (the note included).
   * @default 51200 (50 KiB)
   */
  maxMessageBytes: number;
  /**
   * Longest line of an in-context view, in characters; longer lines are cut with a marker.
   * @default 2000
   */
  maxLineLength: number;
}
