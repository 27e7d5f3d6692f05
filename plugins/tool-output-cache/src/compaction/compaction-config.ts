/**
 * The `compaction` section of the config; `plugin.json`'s `configSchema` validates it and holds the defaults (a unit
 * test keeps the fields and the schema's in step).
 * @see docs/strategies/tool-output-cache.md
 */
export interface CompactionConfig {
  /** Compaction at all (automatic and through the `compact` tool). @default true */
  enabled: boolean;
  /** Automatic compaction when usage passes the threshold; `false` leaves only the `compact` tool. @default true */
  auto: boolean;
  /** Share of the context limit at which automatic compaction starts (`threshold`). @default 0.8 */
  thresholdRatio: number;
  /**
   * Who writes the summary: `ctxkit`'s summary call; `provider`, the provider's own compaction through the agent's
   * client, falling back to `ctxkit` in the same attempt when it has none or it fails; `auto`, `provider` where it has.
   * @default 'ctxkit'
   */
  engine: CompactionEngine;
  /** Model for the summary call; `null` uses the agent's model. @default null */
  model: string | null;
  /**
   * Instructions for the summary, answered inside `<summary>` tags.
   * @default a continuation summary answered in `<summary></summary>` tags (the schema's text)
   */
  summaryPrompt: string;
  /** Extra instructions appended to the summary prompt as bullet points. @default [] */
  summaryDirectives: string[];
  /** Instructions for the `<retain>` section; `null` uses `DEFAULT_RETAIN_PROMPT`. @default null */
  retainPrompt: string | null;
  /** Extra retain instructions appended as bullet points. @default [] */
  retainDirectives: string[];
  /** Turns (a user message and what follows it) kept verbatim after the summary. @default 1 */
  retainLastTurns: number;
  /** Anti-loop guard: after an attempt, the next automatic one waits until the history grew this much. @default 1000 */
  retryAfterTokens: number;
  /**
   * Multiplies `retryAfterTokens` per attempt in a row that left the context over the threshold, up to the context
   * limit. @default 2
   */
  retryBackoffFactor: number;
  /** Largest answer of the summary call, in tokens. @default 4096 */
  maxSummaryTokens: number;
  /** Deadline of the summary call (ms): past it the compaction fails (`CTXKIT_LLM_TIMEOUT`). @default 120000 */
  timeoutMs: number;
  /**
   * Longest a payload or checkpoint waits for a compaction it starts (ms); past it the call goes on in the background.
   * One started after a failed call is never waited for. @default 5000
   */
  maxWaitMs: number;
  /**
   * After a failed summary call, automatic compaction waits this long (ms), doubled per failure in a row up to
   * `maxFailureBackoffMs`; meanwhile payloads are composed without it. @default 30000
   */
  failureBackoffMs: number;
  /** The longest wait after failed summary calls, in ms. @default 600000 */
  maxFailureBackoffMs: number;
}

/** Who writes a compaction's summary (`compaction.engine`). */
export type CompactionEngine = 'ctxkit' | 'provider' | 'auto';
