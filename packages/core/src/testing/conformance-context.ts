import type { ILLMClient } from '../contracts/llm-client';
import { CtxkitEventBus } from '../events/event-bus';
import { ModelRegistry } from '../models/default-model-registry';
import type { StrategyContext } from '../plugins/strategy-plugin';
import { MemoryContextStore } from '../stores/memory-context-store';
import { createTokenCounter } from '../token-counting/create-token-counter';
import type { ITokenCounter } from '../token-counting/token-counter';
import type { RecordedEvent } from './check-payload';
import { ScriptedLLMClient } from './scripted-llm-client';

/** What the suite builds a strategy's context from; every field may be overridden. */
export type ConformanceContextInput = Partial<StrategyContext> | (() => Partial<StrategyContext>);

/** The language model a strategy gets in the suite: none, a client, or a fixed answer repeated. */
export type ConformanceLLM = ILLMClient | string | (() => ILLMClient) | undefined;

/** A strategy context plus the events it has emitted so far. */
export interface RecordingContext {
  context: StrategyContext;
  events: RecordedEvent[];
}

/** Starting clock of the suite's `now()`: fixed, so that strategies stay deterministic. */
const CONFORMANCE_EPOCH_MS = Date.UTC(2025, 0, 1);

/**
 * Builds a fresh {@link StrategyContext} for one case: a new `MemoryContextStore`, a new
 * `CtxkitEventBus` whose every event is recorded, the built-in `ModelRegistry`, a counter for
 * `gpt-4o` (`createTokenCounter`, exact BPE, unless overridden), a clock that starts at a fixed instant and
 * advances one second per reading, and `llm` as given (a string becomes a `ScriptedLLMClient`
 * repeating that answer; none when left out). `overrides` win over every default except the event
 * recording. For unit tests of a strategy: `createConformanceContext('unit-test')` gives the context
 * its factory takes, and `events` what it emitted.
 */
export function createConformanceContext(
  sessionId: string,
  overrides?: ConformanceContextInput,
  llm?: ConformanceLLM,
): RecordingContext {
  const given = typeof overrides === 'function' ? overrides() : (overrides ?? {});
  const model = given.model ?? 'gpt-4o';
  const models = given.models ?? new ModelRegistry();
  const counters = new Map<string, ITokenCounter>();
  const counterFor =
    given.counterFor ??
    ((name: string): ITokenCounter => {
      let counter = counters.get(name);
      if (!counter) {
        counter = createTokenCounter({ model: name, registry: models });
        counters.set(name, counter);
      }
      return counter;
    });
  const counter = given.counter ?? counterFor(model);
  let clock = CONFORMANCE_EPOCH_MS;
  const events = given.events ?? new CtxkitEventBus();
  const recorded: RecordedEvent[] = [];
  const emit = events.emit.bind(events) as (name: string, payload: unknown) => boolean;
  (events as unknown as { emit: (name: string, payload: unknown) => boolean }).emit = (
    name: string,
    payload: unknown,
  ) => {
    recorded.push({ name, payload: (payload ?? {}) as Record<string, unknown> });
    return emit(name, payload);
  };
  const client =
    typeof llm === 'string'
      ? new ScriptedLLMClient([llm], { repeatLast: true })
      : typeof llm === 'function'
        ? llm()
        : llm;
  const context: StrategyContext = {
    agentId: 'conformance-agent',
    strategyId: 'conformance-strategy',
    models,
    store: new MemoryContextStore(),
    now: () => (clock += 1000),
    ...given,
    sessionId: given.sessionId ?? sessionId,
    model,
    counter,
    counterFor,
    events,
    llm: 'llm' in given ? given.llm : client,
  };
  return { context, events: recorded };
}
