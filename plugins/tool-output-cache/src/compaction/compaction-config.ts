/**
 * Configuration of compaction. Defaults live in `plugin.json`'s `configSchema`;
 * {@link resolveCompactionConfig} applies the same defaults when the strategy is built without the
 * loader.
 * @see docs/strategies/tool-output-cache.md
 */
export interface CompactionConfig {
  /**
   * Compaction at all (automatic and through the `compact` tool).
   * @default true
   */
  enabled?: boolean;
  /**
   * Automatic compaction when usage passes the threshold; `false` leaves only the `compact` tool.
   * @default true
   */
  auto?: boolean;
  /**
   * Share of the context limit at which automatic compaction starts: `threshold = contextLimit × thresholdRatio`.
   * @default 0.8
   */
  thresholdRatio?: number;
  /**
   * Model for the summary call; `null` uses the agent's model.
   * @default null
   */
  model?: string | null;
  /**
   * Instructions for the summary, answered inside `<summary>` tags.
   * @default DEFAULT_SUMMARY_PROMPT (a continuation summary in `<summary></summary>` tags)
   */
  summaryPrompt?: string;
  /**
   * Extra instructions appended to the summary prompt as bullet points.
   * @default []
   */
  summaryDirectives?: string[];
  /**
   * Instructions for the `<retain>` section; `null` uses DEFAULT_RETAIN_PROMPT.
   * @default null
   */
  retainPrompt?: string | null;
  /**
   * Extra retain instructions appended as bullet points.
   * @default []
   */
  retainDirectives?: string[];
  /**
   * Turns (a user message and what follows it) kept verbatim after the summary.
   * @default 1
   */
  retainLastTurns?: number;
  /**
   * Anti-loop guard: after a compaction attempt (failed, not shrinking, or done) the next automatic
   * one waits until the history has grown by this many tokens.
   * @default 1000
   */
  retryAfterTokens?: number;
  /**
   * Back-off of attempts that make no progress: after each automatic or manual attempt in a row that
   * did not bring the context under the threshold (it failed, did not shrink the history, or what it
   * must keep is over the threshold already), the wait of `retryAfterTokens` is multiplied by this
   * factor, up to the context limit. `1` waits `retryAfterTokens` every time.
   * @default 2
   */
  retryBackoffFactor?: number;
  /**
   * Largest answer of the summary call, in tokens.
   * @default 4096
   */
  maxSummaryTokens?: number;
  /**
   * Deadline of the summary call, in ms, enforced by the compaction itself (an abort signal for
   * the client and its own timer racing the call): past it the compaction fails like on a model
   * error (`compaction-error` with `CTXKIT_LLM_TIMEOUT`), the history stays as it was.
   * @default 120000
   */
  timeoutMs?: number;
}

/** {@link CompactionConfig} with every default applied. */
export interface ResolvedCompactionConfig {
  enabled: boolean;
  auto: boolean;
  thresholdRatio: number;
  model: string | null;
  summaryPrompt: string;
  summaryDirectives: string[];
  retainPrompt: string | null;
  retainDirectives: string[];
  retainLastTurns: number;
  retryAfterTokens: number;
  retryBackoffFactor: number;
  maxSummaryTokens: number;
  timeoutMs: number;
}

/**
 * The default summary prompt: a continuation summary answered in `<summary>` tags.
 */
export const DEFAULT_SUMMARY_PROMPT = [
  'You have been working on the task described above and have not finished it yet.',
  'Write a continuation summary that lets you, or another instance of yourself, resume the work efficiently',
  'in a new context window where this conversation is replaced by your summary.',
  'Be structured, concise and actionable. Include:',
  '1. The task: what the user asked for, with every requirement and constraint they stated.',
  '2. Progress: what has been done and learned (files, commands, results, errors, decisions and why).',
  '3. Current state: what is in progress right now.',
  '4. Next steps: what remains, in order.',
  'Wrap the summary in <summary></summary> tags.',
].join('\n');

/**
 * The default retain instructions (used when `retainPrompt` is `null`): list what must survive
 * verbatim, answered in `<retain>` tags.
 */
export const DEFAULT_RETAIN_PROMPT = [
  'Before the summary, list inside <retain></retain> tags the facts that must survive word for word:',
  'identifiers, file paths, names, numbers, user constraints, decisions, and the ref ids of cached tool outputs',
  '(ref=...) that may need to be expanded again with tool_output_cache.',
].join('\n');

/** Defaults of {@link CompactionConfig}. */
export const COMPACTION_DEFAULTS: Readonly<ResolvedCompactionConfig> = Object.freeze({
  enabled: true,
  auto: true,
  thresholdRatio: 0.8,
  model: null,
  summaryPrompt: DEFAULT_SUMMARY_PROMPT,
  summaryDirectives: [] as string[],
  retainPrompt: null,
  retainDirectives: [] as string[],
  retainLastTurns: 1,
  retryAfterTokens: 1000,
  retryBackoffFactor: 2,
  maxSummaryTokens: 4096,
  timeoutMs: 120000,
});

/** Applies the defaults of {@link CompactionConfig} to a partial config (never mutates it). */
export function resolveCompactionConfig(config: CompactionConfig | undefined): ResolvedCompactionConfig {
  const d = COMPACTION_DEFAULTS;
  return {
    enabled: config?.enabled ?? d.enabled,
    auto: config?.auto ?? d.auto,
    thresholdRatio: config?.thresholdRatio ?? d.thresholdRatio,
    model: config?.model ?? d.model,
    summaryPrompt: config?.summaryPrompt ?? d.summaryPrompt,
    summaryDirectives: [...(config?.summaryDirectives ?? d.summaryDirectives)],
    retainPrompt: config?.retainPrompt ?? d.retainPrompt,
    retainDirectives: [...(config?.retainDirectives ?? d.retainDirectives)],
    retainLastTurns: Math.max(0, Math.floor(config?.retainLastTurns ?? d.retainLastTurns)),
    retryAfterTokens: Math.max(0, Math.floor(config?.retryAfterTokens ?? d.retryAfterTokens)),
    retryBackoffFactor: Math.max(1, config?.retryBackoffFactor ?? d.retryBackoffFactor),
    maxSummaryTokens: Math.max(1, Math.floor(config?.maxSummaryTokens ?? d.maxSummaryTokens)),
    timeoutMs: Math.max(1, Math.floor(config?.timeoutMs ?? d.timeoutMs)),
  };
}
