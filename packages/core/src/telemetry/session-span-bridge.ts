import { type Context, context, type Span, trace } from '@opentelemetry/api';

import type { CtxkitEventPayloads } from '../events/ctxkit-events';
import type { CtxkitEventBus } from '../events/event-bus';
import {
  LIFECYCLE_EVENTS,
  LIFECYCLE_SPAN,
  LIFECYCLE_START,
  type LifecycleEventName,
  lifecycleSpanEvent,
} from './span-events';
import { CTXKIT_INSTRUMENTATION_SCOPE, CtxkitAttributes, GenAiAttributes } from './telemetry-names';

/** Where and when a session's background work started (its `summary-start` or `compaction-start`). */
interface Started {
  time: number;
  context: Context;
}

/**
 * Puts an agent's lifecycle events on spans: on the compose span of their session while one is
 * open, else on a span of their own that starts where the work started (its start event) and ends
 * with the event, a child of the context that was active then. Made for an agent's bus the first
 * time one of its composes is recorded, so an agent whose host registered no tracer provider never
 * listens.
 */
export class SessionSpanBridge {
  private static readonly bridges = new WeakMap<CtxkitEventBus, SessionSpanBridge>();
  private readonly open = new Map<string, Span[]>();
  private readonly started = new Map<string, Started>();

  /** The bridge of `events`, listening from now on. */
  static of(events: CtxkitEventBus): SessionSpanBridge {
    let bridge = SessionSpanBridge.bridges.get(events);
    if (bridge === undefined) {
      bridge = new SessionSpanBridge(events);
      SessionSpanBridge.bridges.set(events, bridge);
    }
    return bridge;
  }

  private constructor(events: CtxkitEventBus) {
    for (const name of ['summary-start', 'compaction-start'] as const) {
      events.on(name, (payload) =>
        this.started.set(`${payload.sessionId}\u0000${name}`, { time: Date.now(), context: context.active() }),
      );
    }
    for (const name of LIFECYCLE_EVENTS) {
      events.on(name, ((payload: CtxkitEventPayloads[typeof name]) => this.report(name, payload)) as never);
    }
  }

  /** `span` is the session's compose span until {@link close}. */
  openCompose(sessionId: string, span: Span): void {
    const spans = this.open.get(sessionId);
    if (spans === undefined) this.open.set(sessionId, [span]);
    else spans.push(span);
  }

  close(sessionId: string, span: Span): void {
    const spans = this.open.get(sessionId);
    if (spans === undefined) return;
    const index = spans.lastIndexOf(span);
    if (index >= 0) spans.splice(index, 1);
    if (spans.length === 0) this.open.delete(sessionId);
  }

  private report<K extends LifecycleEventName>(name: K, payload: CtxkitEventPayloads[K]): void {
    try {
      const { name: eventName, attributes } = lifecycleSpanEvent(name, payload);
      const startName = LIFECYCLE_START[name];
      const key = startName !== undefined ? `${payload.sessionId}\u0000${startName}` : undefined;
      const started = key !== undefined ? this.started.get(key) : undefined;
      if (key !== undefined) this.started.delete(key);
      const compose = this.open.get(payload.sessionId)?.at(-1);
      if (compose !== undefined) {
        compose.addEvent(eventName, attributes);
        return;
      }
      const span = trace.getTracer(CTXKIT_INSTRUMENTATION_SCOPE).startSpan(
        LIFECYCLE_SPAN[name],
        {
          ...(started !== undefined ? { startTime: started.time } : {}),
          attributes: {
            [GenAiAttributes.agentId]: payload.agentId,
            [GenAiAttributes.conversationId]: payload.sessionId,
            [CtxkitAttributes.strategyId]: payload.strategyId,
          },
        },
        started?.context ?? context.active(),
      );
      span.addEvent(eventName, attributes);
      span.end();
    } catch {
      // Telemetry never breaks the work it observes.
    }
  }
}
