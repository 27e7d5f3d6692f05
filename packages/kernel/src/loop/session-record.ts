import type { ChatMessage, CtxkitEventBus, ProviderName } from '@ctxkit/core';

import { IncrementalPayloadCount } from '../budget/incremental-payload-count';
import { SessionUsageLevel } from '../budget/session-usage-level';
import { IncrementalProviderCheck } from '../providers/incremental-provider-check';
import { ThinkingPrefixBinding } from '../providers/thinking-prefix-binding';
import type { SmallContextMode } from '../small-context/small-context-plan';

/** A session's history between runs: a frozen array of frozen messages, and its user messages counted. */
export interface KeptHistory {
  readonly messages: readonly ChatMessage[];
  readonly turn: number;
}

/** The history of a session that has not run yet. */
export const NO_HISTORY: KeptHistory = Object.freeze({
  messages: Object.freeze([]) as readonly ChatMessage[],
  turn: 0,
});

/**
 * What the agent keeps about one session from one call and run to the next, in one record: its
 * history, which small-context modes are engaged (so `small-context-mode` is emitted on change only)
 * and whether mode A stays on, its usage level (the one emitter of `usage-level-change`), the advice
 * already given, and what the next payload is compared with (the pre-send count, the provider check
 * and, for Anthropic, the prefix binding of signed thinking blocks).
 */
export interface SessionRecord {
  /** Set when a run ends, and by an undo that gave a history back. */
  history: KeptHistory;
  readonly engaged: Set<SmallContextMode>;
  /**
   * Mode A engaged under `when-needed` stays engaged for the session: once requested, older tool
   * results are collapsed on every later call, so a result once sent as a summary never comes back
   * in full (prompt caches see a stable prefix).
   */
  stickyA: boolean;
  readonly usage: SessionUsageLevel;
  readonly adviceGiven: Set<string>;
  /** The pre-send count of the session's payloads, from one payload to the next. */
  readonly payloadCount: IncrementalPayloadCount;
  /** The provider validity check (it remembers the session's last valid payload). */
  readonly providerCheck: IncrementalProviderCheck;
  /**
   * The prefix binding of signed thinking blocks (Anthropic only; it remembers the session's last
   * request sent): each payload is sent without the blocks whose prefix changed.
   */
  readonly thinkingBinding: ThinkingPrefixBinding | undefined;
}

/** A new session's record, for payloads in `provider`'s wire format. */
export function newSessionRecord(sessionId: string, provider: ProviderName, events: CtxkitEventBus): SessionRecord {
  return {
    history: NO_HISTORY,
    engaged: new Set(),
    stickyA: false,
    usage: new SessionUsageLevel(events, sessionId),
    adviceGiven: new Set(),
    payloadCount: new IncrementalPayloadCount(),
    providerCheck: new IncrementalProviderCheck(provider),
    thinkingBinding: provider === 'anthropic' ? new ThinkingPrefixBinding() : undefined,
  };
}
