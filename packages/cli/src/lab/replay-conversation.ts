import {
  type ChatMessage,
  type ContextSession,
  CtxkitError,
  hasWhenIdle,
  type IContextManager,
  type ITokenCounter,
  type ToolDefinition,
} from '@ctxkit/core';
import { computeBudget, findPayloadProblems } from '@ctxkit/core/strategy-kit';

import { readPayloadFacts } from '../quality/fact-presence';
import { isFactRecoverable } from '../quality/fact-recovery';
import type { NeededFact } from '../quality/needed-fact';
import { neededFacts } from '../quality/needed-facts';
import type { CallObservation } from './call-observation';
import { nothingSent } from './nothing-sent';
import { payloadText } from './payload-text';
import { repeatedPrefixTokens, type SentPayload } from './repeated-prefix';
import { type ReplayPoint, replayPoints } from './replay-points';
import type { TranscriptRecord } from './transcript-record';

/** What {@link replayConversation} replays, through which manager, at which window. */
export interface ReplayOptions {
  manager: IContextManager;
  record: TranscriptRecord;
  /** Counts what was sent, the same way for every strategy. */
  counter: ITokenCounter;
  window: number;
  reserveOutputTokens?: number;
  /**
   * After each compose, check that the session's pins are in the payload (the manager must be a session). @default
   * false
   */
  checkPins?: boolean;
  /** Called before each compose with its arguments (a preview of what it will reduce). */
  beforeCompose?: (call: { systemPrompt: string; history: ChatMessage[]; tools: ToolDefinition[] }) => Promise<void>;
  /** Called after each model call (progress bars, panels). */
  onCall?: (observation: CallObservation, payload: { messages: ChatMessage[] } | undefined) => void;
  /** Await background work after each turn (deterministic replays). @default true */
  awaitBackgroundWork?: boolean;
  /**
   * Also compose after the last message when the record ends on an answered turn (questions asked after the
   * conversation). @default false
   */
  finalCompose?: boolean;
  /** The facts to check, each at the call that needs it. @default neededFacts(record, end of the last compose) */
  facts?: readonly NeededFact[];
}

/** The replay schedule of a record, with the final compose when asked. */
export function replaySchedule(record: TranscriptRecord, finalCompose = false): ReplayPoint[] {
  const points = replayPoints(record.messages);
  const last = points[points.length - 1];
  if (finalCompose && !(last?.kind === 'compose' && last.end === record.messages.length))
    points.push({ kind: 'compose', end: record.messages.length });
  return points;
}

/**
 * Replays one recorded conversation through a strategy, turn by turn, the way an agent loop would:
 * compose before each model call, `onTurnComplete` at each turn end (then its background work is
 * awaited). Each fact is checked in the payload composed at the moment it is needed (`neededFacts`).
 * Returns one observation per model call. A rejected compose (typed ctxkit error) is recorded, not thrown; anything
 * else is.
 */
export async function replayConversation(options: ReplayOptions): Promise<CallObservation[]> {
  const { manager, record, counter } = options;
  const system = record.messages[0]!;
  const systemPrompt = typeof system.content === 'string' ? system.content : payloadText([system]);
  const tools = record.tools ?? [];
  const toolTokens = counter.countTools(tools);
  const budget = computeBudget({
    contextWindow: options.window,
    maxContextTokens: options.window,
    reserveOutputTokens: options.reserveOutputTokens,
  });
  const ceiling = budget.maxContextTokens - budget.reserveOutputTokens;
  const schedule = replaySchedule(record, options.finalCompose);
  const lastCompose = schedule.filter((point) => point.kind === 'compose').pop()?.end ?? record.messages.length;
  const factsAt = new Map<number, NeededFact[]>();
  for (const fact of options.facts ?? neededFacts(record, lastCompose))
    factsAt.set(fact.neededAt, [...(factsAt.get(fact.neededAt) ?? []), fact]);
  const observations: CallObservation[] = [];
  let previous: SentPayload | undefined;
  // Prefix sums of message counts: "sending everything" at each point without recounting.
  const prefix: number[] = [counter.countMessage(system)];
  for (let index = 1; index < record.messages.length; index++)
    prefix.push(prefix[index - 1]! + counter.countMessage(record.messages[index]!));

  for (const point of schedule) {
    const history = record.messages.slice(1, point.end);
    if (point.kind === 'turn-complete') {
      await manager.onTurnComplete(history);
      if (options.awaitBackgroundWork !== false && hasWhenIdle(manager)) await manager.whenIdle();
      continue;
    }
    const everythingTokens = prefix[point.end - 1]! + toolTokens;
    const needed = factsAt.get(point.end) ?? [];
    if (options.beforeCompose) await options.beforeCompose({ systemPrompt, history, tools });
    const started = performance.now();
    let observation: CallObservation;
    let sent: { messages: ChatMessage[] } | undefined;
    try {
      const payload = await manager.composePayload(systemPrompt, history, tools);
      const milliseconds = performance.now() - started;
      sent = payload;
      const sentTokens = counter.countMessages(payload.messages) + counter.countTools(payload.tools);
      const repeated = repeatedPrefixTokens(previous, payload, counter);
      previous = payload;
      const held = needed.length > 0 ? readPayloadFacts(payload.messages) : undefined;
      const missing = needed.filter((fact) => !held!.holds(fact));
      observation = {
        recordId: record.id,
        call: observations.length,
        historyLength: history.length,
        sentTokens,
        everythingTokens,
        window: options.window,
        budget: ceiling,
        available: payload.stats.budget.available,
        reduced: payload.stats.reductions.length > 0,
        dropped: payload.stats.dropped,
        summarized: payload.stats.summarized,
        trimmed: payload.stats.trimmed,
        compacted: payload.stats.compacted,
        problems: findPayloadProblems(payload.messages).map((problem) => `${problem.problem} at ${problem.index}`),
        overBudget: sentTokens > ceiling,
        milliseconds,
        usageLevel: payload.stats.usageLevel,
        sections: payload.stats.sections,
        factsActive: needed.length,
        factsPresent: needed.length - missing.length,
        factsRecoverable: missing.filter((fact) => isFactRecoverable(fact, payload, record.messages)).length,
        repeatedPrefixTokens: repeated,
        fitsWhole: everythingTokens <= ceiling,
      };
      const receipt = summaryReceiptOf(payload.stats.extra);
      if (receipt) observation.summaryReceipt = receipt;
      if (options.checkPins) {
        const pins = (await (manager as ContextSession).pins()).filter((pin) => pin.text !== '');
        const text = payloadText(payload.messages);
        observation.pins = { active: pins.length, kept: pins.filter((pin) => text.includes(pin.text)).length };
      }
    } catch (error) {
      if (!CtxkitError.isInstance(error)) throw error;
      observation = {
        recordId: record.id,
        call: observations.length,
        historyLength: history.length,
        everythingTokens,
        window: options.window,
        budget: ceiling,
        milliseconds: performance.now() - started,
        // A rejected call held none of the facts it needed.
        factsActive: needed.length,
        fitsWhole: everythingTokens <= ceiling,
        ...nothingSent(),
        error: { code: error.code, message: error.message },
      };
    }
    observations.push(observation);
    options.onCall?.(observation, sent);
  }
  return observations;
}

/** The summary receipt a payload's `stats.extra` carries, in the lab's short form; undefined without one. */
function summaryReceiptOf(extra: Record<string, unknown> | undefined): CallObservation['summaryReceipt'] {
  const receipt = extra?.summaryReceipt as
    { covers?: { from?: unknown; to?: unknown }; kept?: unknown; dropped?: unknown; reprompted?: unknown } | undefined;
  if (typeof receipt?.covers?.from !== 'number' || typeof receipt.covers.to !== 'number') return undefined;
  return {
    from: receipt.covers.from,
    to: receipt.covers.to,
    kept: Array.isArray(receipt.kept) ? receipt.kept.length : 0,
    dropped: Array.isArray(receipt.dropped) ? receipt.dropped.length : 0,
    reprompted: receipt.reprompted === true,
  };
}
