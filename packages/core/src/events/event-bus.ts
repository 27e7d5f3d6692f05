import { EventEmitter } from 'eventemitter3';

import type { CtxkitEventMap } from './ctxkit-events';

/**
 * The typed event bus, one per agent container. A listener that throws never breaks a strategy:
 * emit through {@link safeEmit} in strategy code.
 */
export class CtxkitEventBus extends EventEmitter<CtxkitEventMap> {
  /**
   * Sessions whose host emits `usage-level-change`: the agent kernel adds each session it runs, and
   * measures the payloads it sends there itself. Strategies stay silent about usage levels in these
   * sessions, so that each crossing has one emitter (docs/10-small-context.md).
   */
  readonly hostedUsageLevels = new Set<string>();
}

/** Emits, swallowing listener exceptions (a broken listener must not break composePayload). */
export function safeEmit<K extends keyof CtxkitEventMap>(
  bus: CtxkitEventBus,
  event: K,
  payload: Parameters<CtxkitEventMap[K]>[0],
): void {
  try {
    (bus.emit as (event: K, payload: Parameters<CtxkitEventMap[K]>[0]) => boolean)(event, payload);
  } catch {
    // A listener threw: listeners are observers and may not change the strategy's outcome.
  }
}
