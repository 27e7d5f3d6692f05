import { applyConfigSchema, type MemoryRole } from '@ctxkit/core/strategy-kit';

import manifest from '../plugin.json';

/** The plugin id (`plugin.json`'s `id`). */
export const TOOL_OUTPUT_CACHE_STRATEGY_ID = 'std-tool-output-cache-strategy';

/**
 * The config once validated against `plugin.json`'s `configSchema`, the one source of its defaults and of what is
 * valid (the `@default`s document them; a unit test keeps these fields and the schema's in step).
 * @see docs/strategies/tool-output-cache.md
 */
export interface ResolvedToolOutputCacheStrategyConfig {
  /** Model for counting and the registry's window; the agent's model when absent. */
  model?: string;
  /** The payload's hard ceiling, overriding the model's window. @default null (the model's window) */
  maxContextTokens: number | null;
  /** Tokens kept for the answer. @default null (min(4096, ceiling / 8)) */
  reserveOutputTokens: number | null;
  /** Share of the ceiling kept free. @default 0.1 */
  safetyMarginRatio: number;
  /**
   * When the payload no longer fits, make room down to this share of it in one go (older outputs replaced, the
   * window cut back), so that the next calls only append. 1 makes only the room needed, on every call.
   * @default 0.9
   */
  cutBackRatio: number;
  /**
   * With `cutBackRatio` below 1: share of the room that keeps the conversation's first messages, their outputs
   * whole, in front of the window when the history is cut. 0 keeps none.
   * @default 0.6
   */
  keepFirstShare: number;
  /**
   * Where a compaction's retain + summary is sent: `user`, a user message framed as a quoted record of the earlier
   * conversation; `system`, a system message right after the system prompt, with its authority.
   * @default 'user'
   */
  memoryRole: MemoryRole;
  /**
   * Tokens that replacing or micro-compacting older outputs ahead of need must reclaim together before it is done:
   * each such change makes the provider's prompt cache miss the payload from that output on, so a few larger
   * changes keep more of it cached. Replacements the payload needs to fit are made at once; 0 makes each when due.
   * @default 2000
   */
  minReclaimTokens: number;
  /** The tool output cache: in-context views, refs and the token budget of all tool outputs. */
  toolOutputCache: ToolOutputCacheConfig;
  /** Old tool results replaced by `[Previous: used {tool_name}]` (with `; ref=…` for a cached output). */
  microCompact: MicroCompactConfig;
  /** Compaction to retain + summary + the last turns, the transcript saved first. */
  compaction: CompactionConfig;
}

/** The `toolOutputCache` section. */
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

/** When old tool results are replaced: only when the payload would not fit otherwise, or at every payload. */
export type MicroCompactWhen = 'under-pressure' | 'always';

/** The `microCompact` section. */
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

/** The `compaction` section. */
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

/** The sections of the config: objects whose fields may each be left out. */
type ConfigSection = 'toolOutputCache' | 'microCompact' | 'compaction';

/**
 * The config as written (an agent's `contextStrategy.config`, or what a direct caller passes to `createStrategy`):
 * every field may be left out, in each section too; the schema fills in the defaults.
 * @see docs/strategies/tool-output-cache.md
 */
export type ToolOutputCacheStrategyConfig = Partial<Omit<ResolvedToolOutputCacheStrategyConfig, ConfigSection>> & {
  [Section in ConfigSection]?: Partial<ResolvedToolOutputCacheStrategyConfig[Section]>;
};

/**
 * Validates a config against the plugin's `configSchema` as the loader does and returns a copy with its defaults
 * applied; never touches its argument. `undefined` and `null` mean `{}`.
 * @throws ConfigValidationError (`CTXKIT_CONFIG_INVALID`) listing every invalid field with what was expected
 */
export function resolveToolOutputCacheStrategyConfig(
  config: ToolOutputCacheStrategyConfig | undefined | null,
): ResolvedToolOutputCacheStrategyConfig {
  return applyConfigSchema(
    TOOL_OUTPUT_CACHE_STRATEGY_ID,
    manifest.configSchema,
    config ?? {},
  ) as unknown as ResolvedToolOutputCacheStrategyConfig;
}
