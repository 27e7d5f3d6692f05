import type { ChatMessage } from '../contracts/chat-message';
import type { CacheMissReport } from '../contracts/llm-client';
import type { InvalidatedThinking, PayloadStats, ReductionRecord, UsageLevel } from '../contracts/llm-payload';
import type { Pin } from '../contracts/pin';
import type { ReductionEpoch } from '../contracts/reduction-epoch';
import type { TokenUsage } from '../contracts/token-usage';
import type { RecallEmbeddingState } from '../recall/recall-embedding-state';

/** Fields every event carries, so listeners can route without positional arguments. */
export interface CtxkitEventBase {
  agentId: string;
  sessionId: string;
  strategyId: string;
  /** Turn number within the session (count of user messages seen). */
  turn: number;
}

/**
 * The typed event map (noun-verb names, one object payload each). Fields may be added, never
 * removed. See docs/04-events.md.
 */
export interface CtxkitEventPayloads {
  /** A payload was composed. */
  'payload-composed': CtxkitEventBase & { stats: PayloadStats };
  /**
   * History left the payload (dropped by a window), or a memory block or the RAG context was left
   * out: every `dropped` record of the payload; `droppedMessages` counts history messages.
   */
  'history-trim': CtxkitEventBase & { reductions: ReductionRecord[]; droppedMessages: number };
  /**
   * Earlier turns were recalled into the payload (strategies with recall): each hit's session, its
   * history range `[from, to)` there, when it was indexed, and its relevance; `tokens` the recall
   * block's size, `embedding` whether the question's vector took part.
   */
  'history-recall': CtxkitEventBase & {
    hits: Array<{ sessionId: string; from: number; to: number; at: number; relevance: number }>;
    tokens: number;
    candidates: number;
    embedding: RecallEmbeddingState;
  };
  /**
   * A tool output was cut to a view, trimmed to a placeholder or micro-compacted, the newest user
   * message truncated, or a memory block or the RAG context shortened: every `truncated`, `trimmed`
   * and `micro-compacted` record of the payload.
   */
  'tool-output-trim': CtxkitEventBase & { reductions: ReductionRecord[] };
  /** A tool output was stored in the tool output cache. */
  'tool-output-cached': CtxkitEventBase & { refId: string; toolCallId: string; byteSize: number; lineCount: number };
  /** Unreferenced cached outputs were collected. */
  'tool-output-gc': CtxkitEventBase & { refIds: string[] };
  /** A background summary started / ended / failed / was skipped. */
  /**
   * `trigger`: a turn's end that found the fold due (`turn`), or an idle session before its prompt cache expires
   * (`idle`).
   */
  'summary-start': CtxkitEventBase & {
    turns: number;
    messages: number;
    model: string;
    offline: boolean;
    trigger?: 'turn' | 'idle';
  };
  'summary-end': CtxkitEventBase & {
    turns: number;
    messages: number;
    model: string;
    offline: boolean;
    summaryTokens: number;
    replacedTokens: number;
    version: number;
  };
  'summary-error': CtxkitEventBase & {
    error: { code: string; message: string };
    consecutiveFailures: number;
    /** When the next attempt may run (ms since epoch), or null when attempts stopped until history changes. */
    retryAt: number | null;
  };
  'summary-resync': CtxkitEventBase & { reason: string };
  /** Compaction started / ended / failed. `messages` is the compacted history. */
  'compaction-start': CtxkitEventBase & { trigger: 'auto' | 'manual' | 'budget'; tokensBefore: number };
  'compaction-end': CtxkitEventBase & {
    trigger: 'auto' | 'manual' | 'budget';
    tokensBefore: number;
    tokensAfter: number;
    transcriptRef: string;
    messages: ChatMessage[];
  };
  'compaction-error': CtxkitEventBase & {
    trigger: 'auto' | 'manual' | 'budget';
    error: { code: string; message: string };
  };
  /** Entity state changed; `diff` lists changed fields with old and new values. */
  'entities-updated': CtxkitEventBase & {
    version: number;
    sourceMessageIndex: number;
    diff: Array<{ field: string; before: unknown; after: unknown }>;
    offline: boolean;
  };
  'entities-error': CtxkitEventBase & { reason: string; errors: string[]; attempts: number };
  /**
   * Usage level crossed a boundary (ok < 60% <= warn < 80% <= compact < 90% <= critical), once per
   * crossing by one emitter: the kernel in the sessions it runs (the payload as composed, before its
   * pre-send check), else the strategy.
   */
  'usage-level-change': CtxkitEventBase & { from: UsageLevel; to: UsageLevel; used: number; contextWindow: number };
  /** A small-context mode switched on or off. */
  'small-context-mode': CtxkitEventBase & { mode: 'A' | 'B' | 'C' | 'D'; active: boolean; reason: string };
  /**
   * The kernel's pre-send check (the 90% double check) took one step of its escalation to fit the
   * payload under the 90% line: trim old tool results, compact history, force-truncate tool
   * results, leave the oldest turns out (only to retry a request the provider refused as too long),
   * or (last) refuse with BudgetExceededError.
   */
  'budget-escalation': CtxkitEventBase & {
    step: 'trim-old-tool-results' | 'compact-history' | 'truncate-tool-results' | 'drop-oldest-turns' | 'error';
    tokensBefore: number;
    tokensAfter: number;
    limit: number;
    messages: number;
  };
  /** A reduction that changed the session's state was recorded as an undoable epoch. */
  'epoch-recorded': CtxkitEventBase & { epoch: ReductionEpoch };
  /** `undo` restored the state before `epoch` (and undid `alsoUndone` with it). */
  'epoch-undone': CtxkitEventBase & { epoch: ReductionEpoch; alsoUndone: ReductionEpoch[]; historyRestored: boolean };
  /** A pin was added to the session (`pin()`, the `pin_context` tool, or a pin its agent manifest declares). */
  'pin-added': CtxkitEventBase & { pin: Pin };
  /** A pin was removed (`unpin()` or the `unpin_context` tool). */
  'pin-removed': CtxkitEventBase & { pin: Pin };
  /** Plain-language advice for the user. */
  'user-advice': CtxkitEventBase & { message: string };
  /**
   * Provider usage observed by the kernel after a model call: cache reads and writes in `usage`,
   * and the provider's diagnosis of a cache miss where it returned one.
   */
  'llm-usage': CtxkitEventBase & { usage: TokenUsage; model: string; cacheMiss?: CacheMissReport };
  /**
   * Signed thinking blocks were left out of a request sent because their prefix changed (Anthropic's prefix binding).
   */
  'thinking-invalidated': CtxkitEventBase & { invalidated: InvalidatedThinking[] };
  /** Something went wrong in background work and was contained. */
  'strategy-warning': CtxkitEventBase & { message: string; code?: string };
  /**
   * A tool the model called threw, was unknown, or got unreadable arguments; the model gets the error as the tool
   * result.
   */
  'tool-error': CtxkitEventBase & { toolName: string; toolCallId: string; error: { code: string; message: string } };
  /** The kernel's agent loop finished a run (`stopReason`: final answer, or the max-steps bound). */
  'agent-run-end': CtxkitEventBase & { steps: number; stopReason: 'final-answer' | 'max-steps'; usage: TokenUsage };
}

/** The name of every event ctxkit emits (see docs/04-events.md). */
export type CtxkitEventName = keyof CtxkitEventPayloads;

/** eventemitter3 map: each event has one listener argument, its payload object. */
export type CtxkitEventMap = { [K in CtxkitEventName]: (payload: CtxkitEventPayloads[K]) => void };
