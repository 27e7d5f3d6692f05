import {
  type ChatMessage,
  type ContextRuntime,
  type ContextSession,
  type IContextManager,
  MemoryContextStore,
} from '@ctxkit/core';
import { ScriptedLLMClient } from '@ctxkit/core/testing';

import { goldenClock, type GoldenConversation, type GoldenStrategy, stateSchemaFor } from './golden-cases';

/** What one compose step produced, normalised (see {@link normalise}). */
export interface GoldenStep {
  /** History length composed at. */
  end: number;
  /** What `preview` said just before the compose (strategies with `preview`). */
  preview?: unknown;
  /** The payload's messages and tools. */
  payload?: unknown;
  stats?: unknown;
  /** The compose's error, when it rejected. */
  error?: unknown;
  /** What the checkpoint after the model call did (configurations that compact). */
  compaction?: unknown;
  /** Every event emitted during the step (preview, compose, turn completion). */
  events: unknown[];
}

/** One replay: its steps, then (strategies with `undo`) the undo of the newest epoch and the compose after it. */
export interface GoldenReplay {
  name: string;
  steps: GoldenStep[];
}

/** The retain + summary the scripted model writes each compaction with. */
const SUMMARY_REPLY = [
  '<retain>ids: the task, the files read so far</retain>',
  '<summary>The agent worked through the task with its tools.</summary>',
].join('\n');

/** The pinned rule of the pins configurations: two scripts and an emoji. */
const RULE = 'Never delete files; ask before pushing. ファイルを削除しないこと 🚫';

/**
 * Where an agent composes: before each assistant message (after a user message or a finished tool step), and at the
 * end.
 */
export function composePoints(history: readonly ChatMessage[]): number[] {
  const points: number[] = [];
  for (let end = 1; end < history.length; end++) if (history[end]!.role === 'assistant') points.push(end);
  points.push(history.length);
  return points;
}

/**
 * Makes a recorded value byte-stable: epoch ids (random UUIDs) become `epoch-<n>` in order of first
 * appearance; wall-clock figures (`durationMs`, `elapsedMs`, `latencyMs`) become 0 (timings of this
 * machine, not outputs). Everything else is kept as it is, key order included. The clock strategies
 * read (`context.now`) is the runtime's deterministic one, so its timestamps are kept.
 */
export function normalise(value: unknown, ids: Map<string, string>): unknown {
  return JSON.parse(
    JSON.stringify(value, (key, field: unknown) => {
      if (typeof field === 'number' && /^(durationMs|elapsedMs|latencyMs)$/.test(key)) return 0;
      if (typeof field === 'string' && /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(field)) {
        let id = ids.get(field);
        if (id === undefined) ids.set(field, (id = `epoch-${ids.size + 1}`));
        return id;
      }
      return field;
    }),
  );
}

function errorOf(error: unknown): unknown {
  const typed = error as { name?: string; code?: string; message?: string };
  return { name: typed.name, code: typed.code, message: typed.message };
}

/** Replays `conversation` under `strategy` at `ceiling` and records every step. */
export async function replayGolden(
  runtime: ContextRuntime,
  strategy: GoldenStrategy,
  conversation: GoldenConversation,
  ceiling: number,
): Promise<GoldenReplay> {
  const name = `${strategy.name} ${conversation.name} @${ceiling}`;
  const config = {
    ...strategy.config,
    maxContextTokens: ceiling,
    reserveOutputTokens: 0,
    ...(strategy.schema ? { stateSchema: stateSchemaFor(conversation.kind) } : {}),
  };
  // A store of its own: nothing of an earlier replay (a summary, a recall index) is there.
  const agent = await runtime.loadAgent(
    { id: `golden-${strategy.name}`, contextStrategy: { type: 'plugin', pluginId: strategy.pluginId, config } },
    {
      store: new MemoryContextStore(),
      ...(strategy.compacts ? { llm: new ScriptedLLMClient([SUMMARY_REPLY], { repeatLast: true }) } : {}),
    },
  );
  const recorded: unknown[] = [];
  const bus = agent.events as unknown as { emit: (event: string, payload: unknown) => boolean };
  const emit = bus.emit.bind(bus);
  bus.emit = (event: string, payload: unknown) => {
    recorded.push({ event, payload });
    return emit(event, payload);
  };
  const ids = new Map<string, string>();
  goldenClock.reset();
  const session = agent.forSession('golden') as ContextSession & IContextManager;
  const steps: GoldenStep[] = [];
  const drain = () => normalise(recorded.splice(0), ids) as unknown[];
  try {
    if (strategy.pins) {
      await session.pin(0, { label: 'task' });
      await session.pin(RULE, { label: 'rule' });
    }
    const compose = async (history: ChatMessage[]): Promise<GoldenStep> => {
      const step: GoldenStep = { end: history.length, events: [] };
      if (session.preview) {
        try {
          step.preview = normalise(await session.preview(conversation.systemPrompt, history, conversation.tools), ids);
        } catch (error) {
          step.preview = { error: errorOf(error) };
        }
      }
      try {
        const payload = await session.composePayload(conversation.systemPrompt, history, conversation.tools);
        step.payload = normalise({ messages: payload.messages, tools: payload.tools }, ids);
        step.stats = normalise(payload.stats, ids);
        if (strategy.compacts && session.checkCompaction) {
          const input = payload.stats.budget.used;
          const usage = { input_tokens: input, output_tokens: 20, cache_creation_tokens: 0, cache_read_tokens: 0 };
          const result = await session.checkCompaction('after-llm-call', history, {
            ...usage,
            total_tokens: input + 20,
          });
          step.compaction = normalise(result, ids);
        }
      } catch (error) {
        step.error = errorOf(error);
      }
      return step;
    };
    for (const end of composePoints(conversation.history)) {
      const history = conversation.history.slice(0, end);
      if (!history.some((message) => message.role === 'user')) continue;
      const step = await compose(history);
      await session.onTurnComplete(history);
      await session.whenIdle?.();
      step.events = drain();
      steps.push(step);
    }
    if (session.epochs && session.undo) {
      const epochs = await session.epochs();
      const newest = epochs[epochs.length - 1];
      if (newest !== undefined) {
        const undo: GoldenStep = {
          end: -1,
          preview: normalise({ epochs: epochs.length, undo: await session.undo(newest.id) }, ids),
          events: [],
        };
        await session.whenIdle?.();
        undo.events = drain();
        steps.push(undo);
        const after = await compose(conversation.history.slice());
        after.events = drain();
        steps.push(after);
      }
    }
  } finally {
    await agent.dispose();
  }
  return { name, steps };
}
