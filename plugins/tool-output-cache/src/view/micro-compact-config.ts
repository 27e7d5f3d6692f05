/** When old tool results are replaced: only when the payload would not fit otherwise, or at every payload. */
export type MicroCompactWhen = 'under-pressure' | 'always';

/**
 * The `microCompact` section of the config; its defaults are `plugin.json`'s `configSchema` (documented below).
 * @see docs/strategies/tool-output-cache.md
 */
export interface MicroCompactConfig {
  /** Replace old tool results with `[Previous: used {tool_name}]` (naming the ref of a cached output). @default true */
  enabled: boolean;
  /**
   * `under-pressure`: oldest first and only as many as needed (a cached output becomes its trimmed placeholder).
   * `always`: every result older than the newest `keepRecent`, in steps that reclaim at least `minReclaimTokens`.
   * @default 'under-pressure'
   */
  when: MicroCompactWhen;
  /** The newest tool results kept as they are. @default 3 */
  keepRecent: number;
  /** Only results longer than this many characters are replaced. @default 100 */
  minContentLength: number;
}
