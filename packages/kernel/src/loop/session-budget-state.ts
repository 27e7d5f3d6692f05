import { UsageLevelTracker } from '@ctxkit/core';
import { ToolResultCollapser } from '@ctxkit/core';
import type { SmallContextMode } from '../small-context/small-context-plan';

/**
 * What the budget engine remembers about one session between calls and runs: mode A's collapsed
 * copies, which small-context modes are engaged (so `small-context-mode` is emitted on change only),
 * the usage level (so `usage-level-change` is emitted once per crossing) and the advice already given.
 */
export class SessionBudgetState {
  readonly collapser = new ToolResultCollapser();
  readonly engaged = new Set<SmallContextMode>();
  readonly usage = new UsageLevelTracker();
  readonly adviceGiven = new Set<string>();
  /**
   * Mode A engaged under `when-needed` stays engaged for the session: a result once collapsed never
   * comes back in full, so the view the strategy sees only ever shrinks (strategies that keep
   * per-position counts never under-count, and prompt caches see a stable prefix).
   */
  stickyA = false;
  /** Sessions whose strategy emits `usage-level-change` itself: the kernel then stays silent for them. */
  strategyEmitsUsageLevel = false;
}
