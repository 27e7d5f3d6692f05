import { IncrementalPayloadCount } from '../budget/incremental-payload-count';
import { UsageLevelTracker } from '../budget/usage-level-tracker';
import type { SmallContextMode } from '../small-context/small-context-plan';

/**
 * What the budget engine remembers about one session between calls and runs: which small-context
 * modes are engaged (so `small-context-mode` is emitted on change only), whether mode A stays on,
 * the usage level (so `usage-level-change` is emitted once per crossing), the advice already given
 * and the last payload counted (so the pre-send count of the next one counts only what changed).
 */
export class SessionBudgetState {
  readonly engaged = new Set<SmallContextMode>();
  readonly usage = new UsageLevelTracker();
  readonly adviceGiven = new Set<string>();
  /** The pre-send count of the session's payloads, from one payload to the next. */
  readonly payloadCount = new IncrementalPayloadCount();
  /**
   * Mode A engaged under `when-needed` stays engaged for the session: once requested, older tool
   * results are collapsed on every later call, so a result once sent as a summary never comes back
   * in full (prompt caches see a stable prefix).
   */
  stickyA = false;
}
