/**
 * When old tool results are replaced: `under-pressure` only when the payload would not fit otherwise
 * (then oldest first, only as many as needed); `always` at every payload, whether it fits or not.
 */
export type MicroCompactWhen = 'under-pressure' | 'always';

/**
 * The `microCompact` section of the config (layer 1 of the three-layer compaction), validated against
 * `plugin.json`'s `configSchema`, which holds its defaults (the `@default`s below document them).
 * @see docs/strategies/tool-output-cache.md
 */
export interface MicroCompactConfig {
  /**
   * Replace old tool results with `[Previous: used {tool_name}]` (naming the ref of a cached output).
   * @default true
   */
  enabled: boolean;
  /**
   * `under-pressure`: old results are replaced only when the payload would not fit otherwise, oldest
   * first and only as many as needed (a cached output becomes its `[tool output trimmed; ref=…]`
   * placeholder, which names the ref). `always`: every result older than the newest `keepRecent`
   * is replaced whether the payload fits or not, in steps that reclaim at least `minReclaimTokens`.
   * @default 'under-pressure'
   */
  when: MicroCompactWhen;
  /**
   * The newest tool results kept as they are.
   * @default 3
   */
  keepRecent: number;
  /**
   * Only results longer than this many characters are replaced.
   * @default 100
   */
  minContentLength: number;
}
