import type { StoreKey } from '@ctxkit/core';

/**
 * The summary buffer of one agent and session, as kept in the store (kind `summary`). It names
 * how many leading history messages it covers and their fingerprint, so that a later instance (or
 * another process on a shared store) can check the caller's history still starts with them.
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
  /** Tokens of `text` by the agent's counter. */
  summaryTokens: number;
  /** Tokens of the covered messages themselves. */
  coveredTokens: number;
  summarizer: { name: string; model: string; offline: boolean };
  /** ms since epoch. */
  updatedAt: number;
}

/** Store key of a session's summary buffer. */
export function summaryStateKey(agentId: string, sessionId: string): StoreKey {
  return { agentId, sessionId, kind: 'summary', name: 'buffer' };
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
