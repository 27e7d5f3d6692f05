/**
 * What the session trace costs per compose. The bundled tau-bench airline conversations are composed
 * once by the sliding window at a 4,096-token ceiling (so that payloads carry reductions), and the
 * payloads kept. Then an in-process strategy that answers each compose with its kept payload (no
 * work of its own) is run through `runtime.loadAgent` with `sessionTrace` off and on, on the memory
 * store (`--file-store`: the file store in a temporary directory): the difference, per compose, is
 * the trace's cost, its writes to the store included (each run ends once every trace is written).
 * CPU time of this process, median of alternating rounds. `--one-session` composes every call in one
 * session, so that the trace fills to its bound and rotates. `--spaced` waits a millisecond after each
 * compose, as an agent waits for its model, so that each compose's entry is written on its own rather
 * than batched with the next ones'.
 *
 * `node bench/dist/session-trace-bench.js [--one-session] [--file-store] [--spaced]` prints the measurement as
 * JSON.
 */
import 'reflect-metadata';

import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

import {
  type ChatMessage,
  createContextRuntime,
  FileContextStore,
  type LLMPayload,
  MemoryContextStore,
} from '@ctxkit/core';

/** `--file-store`: the file store in a temporary directory instead of the memory store. */
const FILE_STORE = process.argv.includes('--file-store');
/** `--spaced`: a millisecond's pause after each compose, in both runs, so that every entry is written alone. */
const SPACED = process.argv.includes('--spaced');

function cpuMs(): number {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
}

interface Conversation {
  id: string;
  systemPrompt: string;
  /** The history of each model call, in order. */
  calls: ChatMessage[][];
}

function readConversations(): Conversation[] {
  const file = path.join(
    path.dirname(require.resolve('@ctxkit/core/package.json')),
    'fixtures',
    'conversations',
    'tau-bench-airline.jsonl',
  );
  return fs
    .readFileSync(file, 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => {
      const record = JSON.parse(line) as { id: string; messages: ChatMessage[] };
      const [system, ...history] = record.messages;
      const calls = history.flatMap((message, index) =>
        message.role === 'assistant' ? [history.slice(0, index)] : [],
      );
      return {
        id: record.id.replace(/[^A-Za-z0-9._:@-]+/g, '.'),
        systemPrompt: typeof system?.content === 'string' ? system.content : '',
        calls,
      };
    });
}

/** Each call's payload as the sliding window composes it. */
async function keptPayloads(conversations: Conversation[]): Promise<Map<ChatMessage[], LLMPayload>> {
  const runtime = await createContextRuntime({});
  const agent = await runtime.loadAgent({
    id: 'window',
    contextStrategy: {
      type: 'plugin',
      pluginId: 'std-sliding-window-strategy',
      config: { model: 'gpt-4o', maxContextTokens: 4096 },
    },
  });
  const kept = new Map<ChatMessage[], LLMPayload>();
  for (const conversation of conversations) {
    const session = agent.forSession(conversation.id);
    for (const history of conversation.calls)
      kept.set(history, await session.composePayload(conversation.systemPrompt, history, []));
  }
  await runtime.dispose();
  return kept;
}

/**
 * CPU milliseconds to compose every call of every conversation once, with the trace on or off, until every trace is
 * written.
 */
async function run(
  conversations: Conversation[],
  kept: Map<ChatMessage[], LLMPayload>,
  traced: boolean,
): Promise<number> {
  const root = FILE_STORE ? fs.mkdtempSync(path.join(os.tmpdir(), 'ctxkit-trace-bench-')) : undefined;
  const traceStore = root !== undefined ? new FileContextStore({ rootDir: root }) : new MemoryContextStore();
  const runtime = await createContextRuntime({ discoverInstalled: false, store: traceStore, sessionTrace: traced });
  runtime.registerStrategy({ id: 'kept-payload-strategy' }, () => ({
    async composePayload(_system: string, history: ChatMessage[]) {
      return kept.get(history)!;
    },
    async onTurnComplete() {},
  }));
  const agent = await runtime.loadAgent({
    id: 'bench',
    contextStrategy: { type: 'plugin', pluginId: 'kept-payload-strategy' },
  });
  const started = cpuMs();
  for (const conversation of conversations) {
    const session = agent.forSession(conversation.id);
    for (const history of conversation.calls) {
      await session.composePayload(conversation.systemPrompt, history, []);
      if (SPACED) await new Promise((resolve) => setTimeout(resolve, 1));
    }
  }
  // Disposing waits for every session's trace to be written.
  await agent.dispose();
  const spent = cpuMs() - started;
  await runtime.dispose();
  if (root !== undefined) fs.rmSync(root, { recursive: true, force: true });
  return spent;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

async function main(): Promise<void> {
  const bundled = readConversations();
  // `--one-session`: every call in one session, so that the trace fills to its bound and each write carries all of it.
  const conversations = process.argv.includes('--one-session')
    ? [
        {
          id: 'one-session',
          systemPrompt: bundled[0]!.systemPrompt,
          calls: bundled.flatMap((conversation) => conversation.calls),
        },
      ]
    : bundled;
  const kept = await keptPayloads(conversations);
  const composes = conversations.reduce((sum, conversation) => sum + conversation.calls.length, 0);
  const reductions = [...kept.values()].reduce((sum, payload) => sum + payload.stats.reductions.length, 0);
  // Warm-up, then alternating rounds.
  await run(conversations, kept, false);
  await run(conversations, kept, true);
  const off: number[] = [];
  const on: number[] = [];
  for (let round = 0; round < 7; round++) {
    off.push(await run(conversations, kept, false));
    on.push(await run(conversations, kept, true));
  }
  const offMs = median(off) / composes;
  const onMs = median(on) / composes;
  process.stdout.write(
    `${JSON.stringify(
      {
        conversations: conversations.length,
        store: FILE_STORE ? 'file' : 'memory',
        spaced: SPACED,
        composes,
        reductions,
        composeMsTraceOff: round4(offMs),
        composeMsTraceOn: round4(onMs),
        traceMsPerCompose: round4(onMs - offMs),
        targetMs: 0.1,
      },
      null,
      2,
    )}\n`,
  );
}

function round4(value: number): number {
  return Math.round(value * 10_000) / 10_000;
}

main().catch((error: unknown) => {
  process.stderr.write(`${(error as Error).stack ?? String(error)}\n`);
  process.exitCode = 1;
});
