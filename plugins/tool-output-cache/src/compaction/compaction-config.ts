/**
 * The `compaction` section of the config, validated against `plugin.json`'s `configSchema`, which
 * holds its defaults (the `@default`s below document them; a unit test keeps the fields and the
 * schema's in step).
 * @see docs/strategies/tool-output-cache.md
 */
export interface CompactionConfig {
  /**
   * Compaction at all (automatic and through the `compact` tool).
   * @default true
   */
  enabled: boolean;
  /**
   * Automatic compaction when usage passes the threshold; `false` leaves only the `compact` tool.
   * @default true
   */
  auto: boolean;
  /**
   * Share of the context limit at which automatic compaction starts: `threshold = contextLimit × thresholdRatio`.
   * @default 0.8
   */
  thresholdRatio: number;
  /**
   * Who writes the summary: `ctxkit`'s summary call; `provider`, the provider's own compaction through the agent's
   * client, falling back to `ctxkit` in the same attempt when it has none or it fails; `auto`, `provider` where it has.
   * @default 'ctxkit'
   */
  engine: CompactionEngine;
  /**
   * Model for the summary call; `null` uses the agent's model.
   * @default null
   */
  model: string | null;
  /**
   * Instructions for the summary, answered inside `<summary>` tags.
   * @default a continuation summary answered in `<summary></summary>` tags (the schema's text)
   */
  summaryPrompt: string;
  /**
   * Extra instructions appended to the summary prompt as bullet points.
   * @default []
   */
  summaryDirectives: string[];
  /**
   * Instructions for the `<retain>` section; `null` uses the default retain instructions (`DEFAULT_RETAIN_PROMPT`).
   * @default null
   */
  retainPrompt: string | null;
  /**
   * Extra retain instructions appended as bullet points.
   * @default []
   */
  retainDirectives: string[];
  /**
   * Turns (a user message and what follows it) kept verbatim after the summary.
   * @default 1
   */
  retainLastTurns: number;
  /**
   * Anti-loop guard: after a compaction attempt the next automatic one waits until the history has grown by this much.
   * @default 1000
   */
  retryAfterTokens: number;
  /**
   * What `retryAfterTokens` is multiplied by after each attempt in a row that did not bring the context under the
   * threshold, up to the context limit; `1` waits `retryAfterTokens` every time.
   * @default 2
   */
  retryBackoffFactor: number;
  /**
   * Largest answer of the summary call, in tokens.
   * @default 4096
   */
  maxSummaryTokens: number;
  /**
   * Deadline of the summary call, in ms, enforced by the compaction itself: past it the compaction fails
   * (`CTXKIT_LLM_TIMEOUT`) and the history stays as it was.
   * @default 120000
   */
  timeoutMs: number;
  /**
   * Longest a payload or checkpoint waits for a compaction it starts, in ms: past it the summary call goes on in the
   * background and the next payload uses it. A compaction started after a failed call is never waited for.
   * @default 5000
   */
  maxWaitMs: number;
  /**
   * After a failed summary call, automatic compaction waits this long (ms), doubled per failed call in a row up to
   * `maxFailureBackoffMs`; meanwhile payloads are composed at once without it.
   * @default 30000
   */
  failureBackoffMs: number;
  /**
   * The longest wait after failed summary calls, in ms.
   * @default 600000
   */
  maxFailureBackoffMs: number;
}

/** Who writes a compaction's summary (`compaction.engine`). */
export type CompactionEngine = 'ctxkit' | 'provider' | 'auto';
