import type { StoreKey } from '@ctxkit/core';

import { type FoldBackoffState, initialFoldBackoffState, isFoldBackoffState } from './fold/fold-backoff';
import { type FoldClaim, isFoldClaim } from './fold/fold-claim';

/**
 * The summary buffer of one agent and session. It names how many leading history messages it covers
 * and their fingerprint, so that a later instance (or another process on a shared store) can check
 * the caller's history still starts with them.
 */
export interface SummaryState {
  /** Layout version of this record. */
  format: 1;
  /** Incremented by every successful fold. */
  version: number;
  /** The summary text (without the delimiting block). */
  text: string;
  /** Leading history messages the summary covers (`history[0, coveredMessages)`). */
  coveredMessages: number;
  /** Turns (user messages) among them. */
  coveredTurns: number;
  /** Fingerprint of `history[0, coveredMessages)`. */
  fingerprint: string;
  /**
   * What the summaries this one was folded from covered, oldest first (the newest
   * {@link MAX_EARLIER_COVERAGE}): a history shorter than `coveredMessages` is compared with the
   * longest of them it holds. Absent in summaries written before it was kept.
   */
  earlierCoverage?: CoveredPrefix[];
  /** Tokens of `text` by the agent's counter. */
  summaryTokens: number;
  /** Tokens of the covered messages themselves. */
  coveredTokens: number;
  summarizer: { name: string; model: string; offline: boolean };
  /** ms since epoch. */
  updatedAt: number;
}

/** The leading history messages a summary covered: how many, and their fingerprint. */
export interface CoveredPrefix {
  coveredMessages: number;
  fingerprint: string;
}

/** Earlier coverages a summary keeps (a history shorter than the oldest of them is not compared with it). */
export const MAX_EARLIER_COVERAGE = 16;

/** The valid entries of `state.earlierCoverage`, oldest first (none for a summary written before it was kept). */
export function earlierCoverageOf(state: SummaryState): CoveredPrefix[] {
  const earlier: unknown = state.earlierCoverage;
  if (!Array.isArray(earlier)) return [];
  return earlier.filter(
    (entry: Partial<CoveredPrefix> | null): entry is CoveredPrefix =>
      typeof entry === 'object' &&
      entry !== null &&
      Number.isInteger(entry.coveredMessages) &&
      typeof entry.fingerprint === 'string',
  );
}

/** The coverage a summary folded from `previous` keeps: `previous`'s earlier coverage and its own. */
export function coverageAfter(previous: SummaryState | null): CoveredPrefix[] {
  if (previous === null) return [];
  return [
    ...earlierCoverageOf(previous),
    { coveredMessages: previous.coveredMessages, fingerprint: previous.fingerprint },
  ].slice(-MAX_EARLIER_COVERAGE);
}

/**
 * What the store keeps for one session (kind `summary`, name `buffer`): the summary buffer, the
 * failure accounting of its folds and the running fold's claim, in one value, so that one
 * compare-and-set moves all three together and every instance and process serving the session
 * shares them.
 */
export interface SummaryRecord {
  /** Layout version of this record (a bare {@link SummaryState} was written before it). */
  format: 2;
  /** The summary buffer; `null` before the first fold and after a re-sync. */
  summary: SummaryState | null;
  failures: FoldBackoffState;
  /** The fold running somewhere, or `null`. */
  fold: FoldClaim | null;
}

/** Store key of a session's summary record. */
export function summaryStateKey(agentId: string, sessionId: string): StoreKey {
  return { agentId, sessionId, kind: 'summary', name: 'buffer' };
}

/** The record of a session with no summary, no failure and no running fold. */
export function emptySummaryRecord(): SummaryRecord {
  return { format: 2, summary: null, failures: initialFoldBackoffState(), fold: null };
}

/** True for a value read from the store that has the layout of {@link SummaryState}. */
export function isSummaryState(value: unknown): value is SummaryState {
  if (value === null || typeof value !== 'object') return false;
  const state = value as Partial<SummaryState>;
  return (
    state.format === 1 &&
    typeof state.text === 'string' &&
    Number.isInteger(state.coveredMessages) &&
    (state.coveredMessages ?? -1) >= 0 &&
    typeof state.fingerprint === 'string' &&
    typeof state.version === 'number'
  );
}

/**
 * The record a value read from the store stands for: a {@link SummaryRecord}; a bare
 * {@link SummaryState} (the layout written before records), with no failures and no running fold;
 * anything else (absent, or not written by this strategy) as the empty record.
 */
export function toSummaryRecord(value: unknown): SummaryRecord {
  if (isSummaryState(value)) return { ...emptySummaryRecord(), summary: value };
  if (value === null || typeof value !== 'object') return emptySummaryRecord();
  const record = value as Partial<SummaryRecord>;
  if (record.format !== 2 || !(record.summary === null || isSummaryState(record.summary))) return emptySummaryRecord();
  return {
    format: 2,
    summary: record.summary,
    failures: isFoldBackoffState(record.failures) ? record.failures : initialFoldBackoffState(),
    fold: isFoldClaim(record.fold) ? record.fold : null,
  };
}

/** True when two buffers are the same summary (or both absent): same version, covered messages and text. */
export function sameSummary(a: SummaryState | null, b: SummaryState | null): boolean {
  if (a === null || b === null) return a === b;
  return (
    a.version === b.version &&
    a.coveredMessages === b.coveredMessages &&
    a.fingerprint === b.fingerprint &&
    a.text === b.text
  );
}
