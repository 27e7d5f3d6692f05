'use strict';
/**
 * One agent process of `postgres-recall.processes.test.ts`:
 * `node recall-agent-worker.js <postgres url> <table prefix>`, with an IPC channel. It loads the agent `assistant` with `std-recall-strategy` (`recall.scope:
 * "resource"`) over a PostgresContextStore (whose own recall backend keeps the recall log) and serves what the test sends:
 *
 * - `{ id, type: 'turn', sessionId, resourceId, history, at }`: composes the turn's payload (the
 *   history up to its user message), then completes it (`onTurnComplete(history)`), at clock `at`;
 * - `{ id, type: 'ask', sessionId, resourceId, history, at }`: composes `history` and answers with the
 *   payload's text and `stats.extra.recall`;
 * - `{ id, type: 'stop' }`: disposes the runtime, closes the store and leaves.
 *
 * Plain JavaScript on the built packages (`dist`): run `npx tsc -b` first.
 */
const fs = require('node:fs');
const path = require('node:path');

const packageDir = path.join(__dirname, '..', '..');
const root = path.join(packageDir, '..', '..');
const BUILT = [
  path.join(root, 'packages', 'core', 'dist', 'index.js'),
  path.join(root, 'plugins', 'recall', 'dist', 'index.js'),
  path.join(packageDir, 'dist', 'index.js'),
];
const missing = BUILT.filter((file) => !fs.existsSync(file));
if (missing.length > 0) {
  process.stderr.write(`recall-agent-worker: ${missing.join(', ')} missing: run npx tsc -b first, then the tests again.\n`);
  process.exit(2);
}

require('reflect-metadata');
const { createContextRuntime } = require('@ctxkit/core');
const { PostgresContextStore } = require(path.join(packageDir, 'dist', 'index.js'));

const AGENT = {
  id: 'assistant',
  contextStrategy: {
    type: 'plugin',
    pluginId: 'std-recall-strategy',
    config: { maxContextTokens: 2000, reserveOutputTokens: 0, recall: { scope: 'resource' } },
  },
};
const SYSTEM_PROMPT = 'You are a helpful assistant.';

function textOf(payload) {
  return payload.messages.map((message) => (typeof message.content === 'string' ? message.content : JSON.stringify(message.content))).join('\n');
}

function lastUserIndex(history) {
  for (let index = history.length - 1; index >= 0; index--) if (history[index].role === 'user') return index;
  return -1;
}

async function main() {
  const [url, tablePrefix] = process.argv.slice(2);
  if (!url || !tablePrefix) throw new Error('usage: node recall-agent-worker.js <postgres url> <table prefix>');
  const store = new PostgresContextStore({ connectionString: url, tablePrefix });
  let clock = 0;
  const runtime = await createContextRuntime({ store, now: () => clock });
  const agent = await runtime.loadAgent(AGENT);

  const serve = async (request) => {
    if (request.type === 'stop') {
      await runtime.dispose();
      await store.close();
      return {};
    }
    clock = request.at;
    const session = agent.forSession(request.sessionId, { resourceId: request.resourceId });
    if (request.type === 'turn') {
      await session.composePayload(SYSTEM_PROMPT, request.history.slice(0, lastUserIndex(request.history) + 1), []);
      await session.onTurnComplete(request.history);
      return {};
    }
    const payload = await session.composePayload(SYSTEM_PROMPT, request.history, []);
    return { text: textOf(payload), recall: payload.stats.extra.recall };
  };

  process.on('message', (request) => {
    serve(request).then(
      (result) => {
        process.send({ id: request.id, type: 'done', ...result });
        if (request.type === 'stop') process.disconnect();
      },
      (error) => process.send({ id: request.id, type: 'failed', error: error instanceof Error ? (error.stack ?? error.message) : String(error) }),
    );
  });
  process.send({ type: 'ready' });
}

main().catch((error) => {
  // Rethrown outside the promise: the worker dies with the error's stack and exit code 1.
  setImmediate(() => {
    throw error;
  });
});
