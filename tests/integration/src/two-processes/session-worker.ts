import 'reflect-metadata';

import { createContextRuntime, type CtxkitEventName, hasWhenIdle, type IContextManager } from '@ctxkit/core';
import { ScriptedLLMClient } from '@ctxkit/core/testing';
import { RedisContextStore } from '@ctxkit/store-redis';

import {
  answerModel,
  conversation,
  EXTRACTOR_AGENT,
  modelCallsKey,
  SUMMARIZER_AGENT,
  turnMessages,
  type WorkerEvents,
  type WorkerReply,
  type WorkerRequest,
} from './session-script';

/**
 * One agent process of the two-process test: `node session-worker.js <redis url> <worker name> <session id>`.
 * It loads the summarizing and the extracting agent over a RedisContextStore, answers model calls
 * with the scripted model (recording each call in the store first), and serves the turns the test
 * sends it over IPC.
 */

const COUNTED: CtxkitEventName[] = [
  'summary-start',
  'summary-end',
  'summary-error',
  'summary-resync',
  'entities-updated',
  'entities-error',
  'strategy-warning',
];

function reply(message: WorkerReply): void {
  process.send!(message);
}

async function main(): Promise<void> {
  const [url, worker, sessionId] = process.argv.slice(2) as [string, string, string];
  const store = new RedisContextStore({ url });
  const llm = new ScriptedLLMClient(
    [
      async (request) => {
        const { reply: text, call } = answerModel(request);
        await store.appendBlob(modelCallsKey(sessionId), `${JSON.stringify({ worker, ...call })}\n`);
        // Slow enough that a fold in one process overlaps the next turn in the other.
        return { reply: text, delayMs: call.kind === 'summary' ? 40 : 10 };
      },
    ],
    { name: 'two-process-model', repeatLast: true },
  );
  const runtime = await createContextRuntime({ store, llm });
  const agents = [await runtime.loadAgent(SUMMARIZER_AGENT), await runtime.loadAgent(EXTRACTOR_AGENT)];
  const events: WorkerEvents = { counts: {}, problems: [] };
  for (const agent of agents) {
    for (const name of COUNTED) {
      agent.events.on(name, (payload: unknown) => {
        events.counts[name] = (events.counts[name] ?? 0) + 1;
        if (name.endsWith('-error') || name === 'strategy-warning')
          events.problems.push(`${worker} ${name}: ${JSON.stringify(payload)}`);
      });
    }
  }
  const managers: IContextManager[] = agents.map((agent) => agent.forSession(sessionId));

  const serve = async (request: WorkerRequest): Promise<WorkerEvents | undefined> => {
    if (request.type === 'turn') {
      const history = conversation(request.turn);
      const asked = history.slice(0, history.length - turnMessages(request.turn).length + 1);
      for (const manager of managers) {
        await manager.composePayload('You are an airline support agent.', asked, []);
        await manager.onTurnComplete(history);
      }
      return undefined;
    }
    if (request.type === 'idle') {
      for (const manager of managers) if (hasWhenIdle(manager)) await manager.whenIdle();
      return undefined;
    }
    await runtime.dispose();
    await store.close();
    return events;
  };

  process.on('message', (request: WorkerRequest) => {
    serve(request).then(
      (result) => {
        reply({ id: request.id, type: 'done', ...(result ? { events: result } : {}) });
        if (request.type === 'stop') process.disconnect();
      },
      (error: unknown) =>
        reply({
          id: request.id,
          type: 'failed',
          error: error instanceof Error ? (error.stack ?? error.message) : String(error),
        }),
    );
  });
  reply({ type: 'ready' });
}

main().catch((error: unknown) => {
  // Rethrown outside the promise: the worker dies with the error's stack and exit code 1, even
  // with its IPC channel to the test still open.
  setImmediate(() => {
    throw error;
  });
});
