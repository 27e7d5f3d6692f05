import type { TokenCounterMeta } from '../token-counting/token-counter';
import type { ChatMessage } from './chat-message';
import type { ToolDefinition } from './tool-definition';

/** Payload sections in priority order, high to low. */
export type PayloadSection = 'system' | 'tools' | 'dynamic' | 'memory' | 'history';

/** Tokens spent on each section of one payload. */
export type SectionTokens = Record<PayloadSection, number>;

/** Context usage level relative to the context window (the context panel's colours). */
export type UsageLevel = 'ok' | 'warn' | 'compact' | 'critical';

/** What happened to a range of the caller's history. */
export type ReductionAction =
  | 'dropped'
  | 'trimmed'
  | 'truncated'
  | 'summarized'
  | 'compacted'
  | 'micro-compacted'
  | 'extracted'
  /** Older than the window, sent again inside a recall block (labelled, in a quoted frame). */
  | 'recalled';

/** Where something that left the payload can be recovered from. */
export type RecoverySource = 'history' | 'summary' | 'tool-output-cache' | 'transcript' | 'entity-state';

/**
 * One reduction: a contiguous range `[from, to)` of indexes into the caller's `history`.
 * Ranges keep reports small on long histories (one record for 9,000 dropped messages). A reduction
 * of a section outside the history (the dynamic context, a memory block such as a summary) is an
 * empty range at the end, `from = to = history.length`, with `messages: 0`.
 */
export interface ReductionRecord {
  action: ReductionAction;
  from: number;
  to: number;
  /** Number of messages affected (`to - from` unless the range is sparse). */
  messages: number;
  /** Tokens of the affected messages before the reduction, when known without extra counting. */
  tokensBefore?: number;
  /** Tokens after (0 for drops). */
  tokensAfter?: number;
  /** Why, in words for people (logs, previews, traces); code reads `cause`. */
  reason: string;
  recoverableFrom: RecoverySource;
  /** Cache refs, transcript ids, summary ids that hold what left. */
  refs?: string[];
  /** Why, for code: set on the records the composer makes (a strategy's own records may leave it out). */
  cause?: ReductionCause;
}

/**
 * The machine cause of a {@link ReductionRecord} the composer makes:
 * - `older-than-window`: history older than the window (it did not fit the budget);
 * - `before-start`: history before the strategy's start index (a lean mode, a compaction);
 * - `orphan`: a tool result without its call, or a call without its results (never sent);
 * - `turn-step`: an older step of a current turn over budget, left out;
 * - `turn-output`: a current-turn tool output truncated head + tail;
 * - `newest-user`: the newest user message truncated (it alone exceeds the budget);
 * - `covered-by-memory`: history a sent memory block stands for (summarized, extracted);
 * - `recalled`: history sent again in a recall block;
 * - `memory-block`: a memory block shortened or left out;
 * - `dynamic-context`: the RAG context truncated or left out;
 * - `collapsed`: an older tool result collapsed to one line (`collapseOlderToolResults`).
 */
export type ReductionCause =
  | 'older-than-window'
  | 'before-start'
  | 'orphan'
  | 'turn-step'
  | 'turn-output'
  | 'newest-user'
  | 'covered-by-memory'
  | 'recalled'
  | 'memory-block'
  | 'dynamic-context'
  | 'collapsed';

/** The budget one payload was composed against. */
export interface PayloadBudget {
  /** The model's context window (from the registry, or `maxContextTokens`). */
  contextWindow: number;
  /** Hard ceiling for the payload plus the output reservation. */
  maxContextTokens: number;
  reserveOutputTokens: number;
  /** Safety margin kept free (10% by default). */
  safetyMarginTokens: number;
  /** Tokens the payload may use: `maxContextTokens - reserveOutputTokens - safetyMarginTokens`. */
  available: number;
  /** Tokens the payload uses. */
  used: number;
  /** `available - used`. */
  remaining: number;
}

/** What changed before a signed thinking block since the model wrote it. */
export type ThinkingPrefixChange = 'system' | 'tools' | 'messages';

/**
 * Signed thinking blocks of one assistant message left out of a payload because what comes before
 * them (the system prompt, the tool list or an earlier message) is no longer what the model saw when
 * it wrote them: the provider would refuse them (Anthropic's prefix binding of preserved thinking).
 * The history keeps them.
 */
export interface InvalidatedThinking {
  /** Index, in the payload's messages, of the assistant message whose blocks were left out. */
  messageIndex: number;
  /** How many blocks were left out (`thinking` with its signature, `redacted_thinking` with its data). */
  blocks: number;
  /** The first part of the prefix that changed: the system prompt, the tool list, or the messages. */
  changed: ThinkingPrefixChange;
}

/** Statistics returned with every payload. Field names follow `trimMessages`' statistics where they overlap. */
export interface PayloadStats {
  strategyId: string;
  model: string;
  /** Tokens of everything the strategy was given (system, tools, dynamic, memory, whole history). */
  input_tokens: number;
  /** Tokens of the payload (messages + tool definitions). */
  output_tokens: number;
  /** `output_tokens / input_tokens`; 1.0 when the input is empty. */
  compress_ratio: number;
  budget: PayloadBudget;
  sections: SectionTokens;
  messages: { input: number; output: number };
  /** Every drop, trim, summary and compaction of this payload. */
  reductions: ReductionRecord[];
  /** Message counts by action, summed over `reductions`. */
  dropped: number;
  trimmed: number;
  summarized: number;
  compacted: number;
  /** Usage level of the payload against the context window. */
  usageLevel: UsageLevel;
  counter: TokenCounterMeta;
  /**
   * Tokens of this payload that repeat the start of the previous payload composed for the same
   * conversation (tool definitions, then whole messages): what a provider's prompt cache can serve.
   * 0 for a conversation's first payload; absent when the strategy does not track it.
   */
  repeatedPrefixTokens?: number;
  /**
   * Signed thinking blocks left out of the payload because their prefix changed (set by the agent
   * loop for Anthropic, see `ThinkingPrefixBinding` in `@ctxkit/kernel`); absent when none was.
   */
  invalidatedThinking?: InvalidatedThinking[];
  /** Strategy-specific facts (summary version, entity state, cache hits). JSON-safe. */
  extra?: Record<string, unknown>;
}

/** What `composePayload` returns: ready to send. */
export interface LLMPayload {
  messages: ChatMessage[];
  tools: ToolDefinition[];
  stats: PayloadStats;
}
