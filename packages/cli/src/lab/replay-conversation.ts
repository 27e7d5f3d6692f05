import {
  computeBudget,
  CtxkitError,
  findPayloadProblems,
  hasWhenIdle,
  type ChatMessage,
  type IContextManager,
  type TokenCounter,
} from '@ctxkit/core';
import type { CallObservation } from './call-observation';
import { payloadText } from './payload-text';
import { replayPoints } from './replay-points';
import type { TranscriptRecord } from './transcript-record';

export interface ReplayOptions {
  manager: IContextManager;
  record: TranscriptRecord;
  /** Counts what was sent, the same way for every strategy. */
  counter: TokenCounter;
  window: number;
  reserveOutputTokens?: number;
  /** Called after each model call (progress bars, panels). */
  onCall?: (observation: CallObservation, payload: { messages: ChatMessage[] } | undefined) => void;
  /** Await background work after each turn (deterministic replays). @default true */
  awaitBackgroundWork?: boolean;
}

/**
 * Replays one recorded conversation through a strategy, turn by turn, the way an agent loop would:
 * compose before each model call, `onTurnComplete` at each turn end. Returns one observation per
 * model call. A rejected compose (typed ctxkit error) is recorded, not thrown; anything else is.
 */
export async function replayConversation(options: ReplayOptions): Promise<CallObservation[]> {
  const { manager, record, counter } = options;
  const system = record.messages[0]!;
  const systemPrompt = typeof system.content === 'string' ? system.content : payloadText([system]);
  const tools = record.tools ?? [];
  const toolTokens = counter.countTools(tools);
  const budget = computeBudget({ contextWindow: options.window, maxContextTokens: options.window, reserveOutputTokens: options.reserveOutputTokens });
  const ceiling = budget.maxContextTokens - budget.reserveOutputTokens;
  const facts = (record.facts ?? []).filter(
    (fact): fact is typeof fact & { answer: string; evidence_message_indexes: number[] } =>
      typeof fact.answer === 'string' && fact.answer.length > 0 && (fact.evidence_message_indexes?.length ?? 0) > 0,
  );
  const observations: CallObservation[] = [];
  // Prefix sums of message counts: "sending everything" at each point without recounting.
  const prefix: number[] = [counter.countMessage(system)];
  for (let index = 1; index < record.messages.length; index++) prefix.push(prefix[index - 1]! + counter.countMessage(record.messages[index]!));

  for (const point of replayPoints(record.messages)) {
    const history = record.messages.slice(1, point.end);
    if (point.kind === 'turn-complete') {
      await manager.onTurnComplete(history);
      if (options.awaitBackgroundWork !== false && hasWhenIdle(manager)) await manager.whenIdle();
      continue;
    }
    const everythingTokens = prefix[point.end - 1]! + toolTokens;
    const started = performance.now();
    let observation: CallObservation;
    let sent: { messages: ChatMessage[] } | undefined;
    try {
      const payload = await manager.composePayload(systemPrompt, history, tools);
      const milliseconds = performance.now() - started;
      sent = payload;
      const sentTokens = counter.countMessages(payload.messages) + counter.countTools(payload.tools);
      const active = facts.filter((fact) => Math.max(...fact.evidence_message_indexes) < point.end);
      const text = active.length > 0 ? payloadText(payload.messages) : '';
      observation = {
        recordId: record.id,
        call: observations.length,
        historyLength: history.length,
        sentTokens,
        everythingTokens,
        window: options.window,
        budget: ceiling,
        dropped: payload.stats.dropped,
        summarized: payload.stats.summarized,
        trimmed: payload.stats.trimmed,
        compacted: payload.stats.compacted,
        problems: findPayloadProblems(payload.messages).map((problem) => `${problem.problem} at ${problem.index}`),
        overBudget: sentTokens > ceiling,
        milliseconds,
        usageLevel: payload.stats.usageLevel,
        sections: payload.stats.sections,
        factsActive: active.length,
        factsPresent: active.filter((fact) => text.includes(fact.answer)).length,
      };
    } catch (error) {
      if (!CtxkitError.isInstance(error)) throw error;
      observation = {
        recordId: record.id,
        call: observations.length,
        historyLength: history.length,
        sentTokens: 0,
        everythingTokens,
        window: options.window,
        budget: ceiling,
        dropped: 0,
        summarized: 0,
        trimmed: 0,
        compacted: 0,
        problems: [],
        overBudget: false,
        milliseconds: performance.now() - started,
        usageLevel: 'ok',
        sections: { system: 0, tools: 0, dynamic: 0, memory: 0, history: 0 },
        factsActive: 0,
        factsPresent: 0,
        error: { code: error.code, message: error.message },
      };
    }
    observations.push(observation);
    options.onCall?.(observation, sent);
  }
  return observations;
}
