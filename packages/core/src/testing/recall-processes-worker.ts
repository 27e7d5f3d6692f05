/**
 * One agent process of {@link runRecallProcessesScenario}, forked with an IPC channel:
 * `node recall-processes-worker.js <store module> <store options as JSON>`. It builds its store with
 * the store module's `createStore(options)` (see {@link RecallStoreModule}), loads the agent
 * `assistant` with `std-recall-strategy` (`recall.scope: "resource"`) over it and serves what the
 * scenario sends:
 *
 * - `{ id, type: 'turn', sessionId, resourceId, history, at }`: composes the turn's payload (the
 *   history up to its user message), then completes it (`onTurnComplete(history)`), at clock `at`;
 * - `{ id, type: 'ask', sessionId, resourceId, history, at }`: composes `history` and answers with the
 *   payload's text and `stats.extra.recall`;
 * - `{ id, type: 'stop' }`: disposes the runtime, closes the store and leaves.
 *
 * It runs built code only (this file from `dist/testing`, the store module, the recall plugin's
 * entry): when one of them is missing it exits with code 2 and says to run `npx tsc -b` first.
 * Published with `@ctxkit/core/testing`; it does nothing when imported.
 *
 * @see runRecallProcessesScenario
 */
import * as path from 'node:path';

import type { ChatMessage } from '../contracts/chat-message';
import type { IContextStore } from '../contracts/context-store';
import type { LLMPayload } from '../contracts/llm-payload';
import { createContextRuntime } from '../index';
import type { RecallStats } from '../recall/recall-layer';

/**
 * The module a store package hands {@link runRecallProcessesScenario}: a CommonJS file that builds
 * the store every worker process shares from the options the test gives (JSON), e.g.
 * `exports.createStore = (options) => new RedisContextStore(options)` over the package's `dist`.
 */
export interface RecallStoreModule {
  createStore(options: unknown): IContextStore | Promise<IContextStore>;
}

/** What the scenario asks a worker, by `id`. */
export type RecallWorkerRequest =
  | { type: 'turn' | 'ask'; sessionId: string; resourceId: string; history: ChatMessage[]; at: number }
  | { type: 'stop' };

/** What a worker answers: once `ready`, then one reply per request, by its `id`. */
export type RecallWorkerReply =
  | { id: number; type: 'done'; text?: string; recall?: RecallStats }
  | { id: number; type: 'failed'; error: string }
  | { type: 'ready' };

/** The exit code of a worker that found a package not built. */
const NOT_BUILT_EXIT_CODE = 2;

const AGENT = {
  id: 'assistant',
  contextStrategy: {
    type: 'plugin',
    pluginId: 'std-recall-strategy',
    config: { maxContextTokens: 2000, reserveOutputTokens: 0, recall: { scope: 'resource' } },
  },
};
const SYSTEM_PROMPT = 'You are a helpful assistant.';

function textOf(payload: LLMPayload): string {
  return payload.messages
    .map((message) => (typeof message.content === 'string' ? message.content : JSON.stringify(message.content)))
    .join('\n');
}

function lastUserIndex(history: readonly ChatMessage[]): number {
  for (let index = history.length - 1; index >= 0; index--) if (history[index]!.role === 'user') return index;
  return -1;
}

/** Whether `error`, or an error it was caused by, is a module that is not there (a package not built). */
function moduleMissing(error: unknown): boolean {
  for (
    let cause = error, depth = 0;
    cause !== undefined && cause !== null && depth < 8;
    cause = (cause as { cause?: unknown }).cause, depth++
  ) {
    if ((cause as NodeJS.ErrnoException).code === 'MODULE_NOT_FOUND') return true;
  }
  return false;
}

/** The store, the runtime and the agent of this process. */
async function open(storeModule: string, options: unknown) {
  const { createStore } = require(path.resolve(storeModule)) as RecallStoreModule;
  const store = await createStore(options);
  let clock = 0;
  const runtime = await createContextRuntime({ store, now: () => clock });
  const agent = await runtime.loadAgent(AGENT);
  return { store, runtime, agent, setClock: (at: number) => (clock = at) };
}

async function main(): Promise<void> {
  const [storeModule, options] = process.argv.slice(2);
  if (!storeModule || options === undefined)
    throw new Error('usage: node recall-processes-worker.js <store module> <store options as JSON>');
  let opened: Awaited<ReturnType<typeof open>>;
  try {
    opened = await open(storeModule, JSON.parse(options));
  } catch (error) {
    if (!moduleMissing(error)) throw error;
    process.stderr.write(
      `recall-processes-worker: ${error instanceof Error ? error.message : String(error)}\nA package is not built: ` +
        `run npx tsc -b first, then the tests again.\n`,
    );
    // Ends the process once stderr is written and the channel to the test is closed: the test reads the code.
    process.exitCode = NOT_BUILT_EXIT_CODE;
    process.disconnect?.();
    return;
  }
  const { store, runtime, agent, setClock } = opened;

  const serve = async (request: RecallWorkerRequest): Promise<{ text?: string; recall?: RecallStats }> => {
    if (request.type === 'stop') {
      await runtime.dispose();
      await store.close?.();
      return {};
    }
    setClock(request.at);
    const session = agent.forSession(request.sessionId, { resourceId: request.resourceId });
    if (request.type === 'turn') {
      await session.composePayload(SYSTEM_PROMPT, request.history.slice(0, lastUserIndex(request.history) + 1), []);
      await session.onTurnComplete(request.history);
      return {};
    }
    const payload = await session.composePayload(SYSTEM_PROMPT, request.history, []);
    return { text: textOf(payload), recall: payload.stats.extra?.recall as RecallStats };
  };

  const send = (reply: RecallWorkerReply): void => void process.send!(reply);
  process.on('message', (request: RecallWorkerRequest & { id: number }) => {
    serve(request).then(
      (result) => {
        send({ id: request.id, type: 'done', ...result });
        if (request.type === 'stop') process.disconnect();
      },
      (error: unknown) =>
        send({
          id: request.id,
          type: 'failed',
          error: error instanceof Error ? (error.stack ?? error.message) : String(error),
        }),
    );
  });
  send({ type: 'ready' });
}

if (require.main === module) {
  main().catch((error: unknown) => {
    // Rethrown outside the promise: the worker dies with the error's stack and exit code 1.
    setImmediate(() => {
      throw error;
    });
  });
}
