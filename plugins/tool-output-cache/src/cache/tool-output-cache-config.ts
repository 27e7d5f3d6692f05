/**
 * The `toolOutputCache` section of the config; `plugin.json`'s `configSchema` holds its defaults (documented below).
 * @see docs/strategies/tool-output-cache.md
 */
export interface ToolOutputCacheConfig {
  /** Cache tool outputs, show in-context views, trim old outputs to placeholders. @default true */
  enabled: boolean;
  /**
   * Token budget for all tool outputs in the payload (older outputs replaced in steps of at least `minReclaimTokens`).
   * `null`: from the model's context window, `clamp(window × 0.25, 20 000, 60 000)`. @default null
   */
  contextBudgetTokens: number | null;
  /** Largest in-context view of one tool output, in UTF-8 bytes (the note included). @default 51200 (50 KiB) */
  maxMessageBytes: number;
  /** Longest line of an in-context view, in characters; longer lines are cut with a marker. @default 2000 */
  maxLineLength: number;
  /**
   * When payloads carry the `tool_output_cache` and `tool_output_cache_grep` definitions: `when-needed`, while the
   * payload holds an output not shown whole; `always`, whenever affordable (at most a quarter of the room), so that the
   * tool list, where a provider's prompt cache starts, never changes mid-session. @default "when-needed"
   */
  offerTools: 'when-needed' | 'always';
}
