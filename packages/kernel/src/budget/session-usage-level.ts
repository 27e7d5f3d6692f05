import { type CtxkitEventBase, type CtxkitEventBus, safeEmit, type UsageLevel } from '@ctxkit/core';
import { usageLevel } from '@ctxkit/core/strategy-kit';

/**
 * The one emitter of `usage-level-change` for a session the kernel runs: it claims the session's
 * usage levels from its strategy and emits each crossing once, never per call. A session starts at
 * `ok`: its first payload reports a change only when it is above 60%.
 *
 * The kernel measures the payloads it sends, as the strategy composed them (before the pre-send check
 * fits them, so that `critical` shows). Strategies stay silent in the sessions the kernel claims
 * (`CtxkitEventBus.hostedUsageLevels`, read by core's composer); they fill `stats.usageLevel`.
 * @see docs/10-small-context.md
 */
export class SessionUsageLevel {
  private current: UsageLevel = 'ok';

  constructor(
    private readonly events: CtxkitEventBus,
    private readonly sessionId: string,
  ) {}

  /** The level of the session's last payload (`ok` before any). */
  get level(): UsageLevel {
    return this.current;
  }

  /** Claims the session's `usage-level-change` events for the kernel: done as each run starts, before it composes. */
  claim(): void {
    this.events.hostedUsageLevels.add(this.sessionId);
  }

  /**
   * Records a payload of `used` tokens in `contextWindow`, and emits `usage-level-change` when its level differs from
   * the last one.
   */
  observe(used: number, contextWindow: number, base: () => CtxkitEventBase): void {
    const from = this.current;
    const to = usageLevel(used, contextWindow);
    this.current = to;
    if (from !== to) safeEmit(this.events, 'usage-level-change', { ...base(), from, to, used, contextWindow });
  }
}
