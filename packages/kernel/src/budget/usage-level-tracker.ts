import { type UsageLevel } from '@ctxkit/core';
import { usageLevel } from '@ctxkit/core/strategy-kit';

/** A usage level change: what {@link UsageLevelTracker.observe} reports. */
export interface UsageLevelChange {
  from: UsageLevel;
  to: UsageLevel;
  used: number;
  contextWindow: number;
}

/**
 * Remembers the usage level of each conversation (key: a session id, or `agentId/sessionId`) and
 * says when it changes, so that `usage-level-change` is emitted once per crossing, never per call.
 * A conversation starts at `ok`: its first observation reports a change only when it is above 60%.
 *
 * One owner emits the event: the kernel's agent loop, for the payloads it sends, measured as the
 * strategy composed them (before the pre-send check fits them, so that `critical` shows). Strategies
 * stay silent in the sessions the kernel runs (`CtxkitEventBus.hostedUsageLevels`); they fill
 * `stats.usageLevel`.
 * @see docs/10-small-context.md
 */
export class UsageLevelTracker {
  private readonly levels = new Map<string, UsageLevel>();

  /** The last level of `key` (`ok` before any observation). */
  level(key: string): UsageLevel {
    return this.levels.get(key) ?? 'ok';
  }

  /** Records `used` tokens of `contextWindow` for `key`; returns the change, or `undefined` when the level stayed. */
  observe(key: string, used: number, contextWindow: number): UsageLevelChange | undefined {
    const from = this.level(key);
    const to = usageLevel(used, contextWindow);
    this.levels.set(key, to);
    return from === to ? undefined : { from, to, used, contextWindow };
  }

  /** Forgets `key` (a session closed or its history replaced). */
  reset(key: string): void {
    this.levels.delete(key);
  }
}
