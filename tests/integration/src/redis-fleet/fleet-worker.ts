import 'reflect-metadata';

import { performance } from 'node:perf_hooks';

import {
  type AgentHandle,
  type ContextSession,
  createContextRuntime,
  type CtxkitEventName,
  hasWhenIdle,
} from '@ctxkit/core';
import { findPayloadProblems } from '@ctxkit/core/strategy-kit';
import { RedisContextStore } from '@ctxkit/store-redis';

import {
  EXTRACTOR_AGENT,
  type FleetReply,
  type FleetRequest,
  type FleetResult,
  SUMMARIZER_AGENT,
  tauBench,
} from './fleet-protocol';

/**
 * One agent process of the Redis fleet tests: `node fleet-worker.js <redis url> <worker name>`. It
 * serves the summarizing and the extracting agent over one RedisContextStore, for whichever session
 * the test names in each request (as a process behind a load balancer would), and answers over IPC.
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

/**
 * A warning about shared state: a read or write of the store that failed. (Offline models and a
 * shortened state block are warned about too, and are expected here.)
 */
function isStoreWarning(payload: unknown): boolean {
  const { code, message } = payload as { code?: string; message?: string };
  return code === 'CTXKIT_STORE_ERROR' || /could not|conflict/i.test(message ?? '');
}

function reply(message: FleetReply): void {
  process.send!(message);
}

async function main(): Promise<void> {
  const [url, worker] = process.argv.slice(2) as [string, string];
  // A machine loaded by many worker processes can hold a reply past the default timeout.
  const store = new RedisContextStore({ url, commandTimeoutMs: 15_000 });
  const runtime = await createContextRuntime({ store });
  const summarizer = await runtime.loadAgent(SUMMARIZER_AGENT);
  const extractor = await runtime.loadAgent(EXTRACTOR_AGENT);
  const agents: AgentHandle[] = [summarizer, extractor];
  const counts: Record<string, number> = {};
  const errors: string[] = [];
  for (const agent of agents) {
    for (const name of COUNTED) {
      agent.events.on(name, (payload: unknown) => {
        counts[name] = (counts[name] ?? 0) + 1;
        if (name.endsWith('-error') || (name === 'strategy-warning' && isStoreWarning(payload)))
          errors.push(`${worker} ${agent.id} ${name}: ${JSON.stringify(payload)}`);
      });
    }
  }
  const sessions = (id: string): ContextSession[] => agents.map((agent) => agent.forSession(id));
  // The first compose of a process also loads what the agents load once (the tokenizer's tables, the JIT).
  let warm = false;
  const history = (record: number, messages: number) => tauBench()[record]!.history.slice(0, messages);

  const serve = async (request: FleetRequest): Promise<FleetResult> => {
    switch (request.type) {
      case 'compose': {
        const { systemPrompt } = tauBench()[request.record]!;
        const latencies: number[] = [];
        const problems: string[] = [];
        for (const session of sessions(request.session)) {
          const started = performance.now();
          const payload = await session.composePayload(systemPrompt, history(request.record, request.messages), []);
          latencies.push(performance.now() - started);
          for (const problem of findPayloadProblems(payload.messages))
            problems.push(
              `${request.session}@${request.messages}: ${problem.problem} at ${problem.index} (${problem.detail})`,
            );
        }
        const cold = !warm;
        warm = true;
        return { latencies, problems, cold };
      }
      case 'report':
        for (const session of sessions(request.session)) {
          await session.onTurnComplete(history(request.record, request.messages));
          if (hasWhenIdle(session)) await session.whenIdle();
        }
        return {};
      case 'pin':
        await summarizer
          .forSession(request.session)
          .pin(`Keep reference ${request.label} in view.`, { label: request.label });
        return {};
      case 'unpin': {
        const session = summarizer.forSession(request.session);
        for (const pin of await session.pins()) if (pin.label === request.label) await session.unpin(pin.id);
        return {};
      }
      case 'undo': {
        const session = summarizer.forSession(request.session);
        const newest = (await session.epochs()).pop();
        if (!newest) return { undone: null };
        await session.undo(newest.id);
        return { undone: newest.id };
      }
      case 'inspect': {
        const session = summarizer.forSession(request.session);
        const folds = (await session.epochs()).map((epoch) => `${epoch.range!.from}-${epoch.range!.to}`);
        return { folds, pins: (await session.pins()).map((pin) => pin.label) };
      }
      case 'stop':
        await runtime.dispose();
        await store.close();
        return { counts, errors };
    }
  };

  process.on('message', (request: FleetRequest) => {
    serve(request).then(
      (result) => {
        reply({ id: request.id, type: 'done', result });
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
  // Rethrown outside the promise: the worker dies with the error's stack and exit code 1.
  setImmediate(() => {
    throw error;
  });
});
