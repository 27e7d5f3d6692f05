import { EventEmitter } from 'eventemitter3';
import type { CtxkitEventMap } from './ctxkit-events';

/**
 * The typed event bus, one per agent container. A listener that throws never breaks a strategy:
 * emit through {@link safeEmit} in strategy code.
 */
export class CtxkitEventBus extends EventEmitter<CtxkitEventMap> {}

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
