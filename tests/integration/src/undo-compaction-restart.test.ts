import 'reflect-metadata';

import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

import {
  type AgentManifest,
  type ChatMessage,
  type ContributedTool,
  createContextRuntime,
  FileContextStore,
  type IContextStore,
} from '@ctxkit/core';
import { ScriptedLLMClient } from '@ctxkit/core/testing';
import { RedisContextStore } from '@ctxkit/store-redis';

import { type RedisServerProcess, startRedisServer } from '../../../packages/store-redis/src/__tests__/redis-server';

/**
 * A compaction undone in another process: the tool-output cache strategy, loaded from its plugin.json
 * (its built `dist`: run `npx tsc -b` first) by a runtime over a store, composes a payload, compacts
 * on the `compact` tool's request (a scripted model writes the summary); a new runtime on the same
 * store, as after a restart, undoes the compaction. The history it gives back is the one compacted,
 * and composing it gives the payload composed before the compaction, byte for byte. Once with the file
 * store, once with the Redis store on a real redis-server.
 */

const SYSTEM = 'You are a careful coding agent.';
const SESSION = 'ticket-4711';
const SUMMARY =
  '<retain>ISSUE-7, src/main.c</retain><summary>The agent read the build logs; the failure is in src/main.c.</summary>';

const MANIFEST: AgentManifest = {
  id: 'undo-restart-coder',
  model: 'gpt-4o',
  contextStrategy: {
    type: 'plugin',
    pluginId: 'std-tool-output-cache-strategy',
    config: { maxContextTokens: 16_000, toolOutputCache: { contextBudgetTokens: 3000 } },
  },
};

function history(): ChatMessage[] {
  const messages: ChatMessage[] = [{ role: 'user', content: 'The build of ISSUE-7 fails. Find out why.' }];
  for (let step = 0; step < 6; step++) {
    const id = `call_${step}`;
    messages.push({
      role: 'assistant',
      content: null,
      tool_calls: [
        { id, type: 'function', function: { name: 'run', arguments: JSON.stringify({ cmd: `make step-${step}` }) } },
      ],
    });
    messages.push({
      role: 'tool',
      tool_call_id: id,
      content: Array.from(
        { length: 60 },
        (_, line) => `step ${step} line ${line}: cc -O2 -c src/main.c -o build/main.o`,
      ).join('\n'),
    });
  }
  messages.push(
    { role: 'assistant', content: 'The failure is in src/main.c.' },
    { role: 'user', content: 'Fix it, then run the tests.' },
  );
  return messages;
}

/** One process: a runtime over `store` with a scripted model, and the session's manager. */
async function open(store: IContextStore) {
  const llm = new ScriptedLLMClient([SUMMARY], { repeatLast: true });
  const runtime = await createContextRuntime({ store, llm });
  const agent = await runtime.loadAgent(MANIFEST);
  return { runtime, llm, session: agent.forSession(SESSION) };
}

async function compactThenUndoInANewProcess(storeFor: () => IContextStore): Promise<void> {
  const given = history();
  const first = await open(storeFor());
  const before = await first.session.composePayload(SYSTEM, given, []);
  const compact = first.session.contributedTools!().find(
    (tool: ContributedTool) => tool.definition.function.name === 'compact',
  )!;
  await compact.execute({}, { agentId: MANIFEST.id, sessionId: SESSION, toolCallId: 'compact-1' });
  const compacted = await first.session.checkCompaction!('before-return', given);
  expect(compacted.compacted).toBe(true);
  expect(first.llm.requests).toHaveLength(1);
  expect(JSON.stringify((await first.session.composePayload(SYSTEM, compacted.messages!, [])).messages)).not.toBe(
    JSON.stringify(before.messages),
  );
  await first.runtime.dispose();

  // Another process on the same store.
  const second = await open(storeFor());
  const epochs = await second.session.epochs();
  const compaction = epochs.find((epoch) => epoch.kind === 'compaction');
  expect(compaction).toBeDefined();
  const undone = await second.session.undo(compaction!.id);
  expect(undone.undone.id).toBe(compaction!.id);
  expect(undone.history).toEqual(given);
  const after = await second.session.composePayload(SYSTEM, undone.history!, []);
  expect(JSON.stringify(after.messages)).toBe(JSON.stringify(before.messages));
  expect(second.llm.requests).toHaveLength(0);
  expect((await second.session.epochs()).some((epoch) => epoch.id === compaction!.id)).toBe(false);
  await second.runtime.dispose();
}

describe('undo of a compaction after a restart', () => {
  it('with the file store', async () => {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'ctxkit-undo-'));
    try {
      await compactThenUndoInANewProcess(() => new FileContextStore({ rootDir: root }));
    } finally {
      fs.rmSync(root, { recursive: true, force: true });
    }
  });

  describe('with the Redis store', () => {
    let server: RedisServerProcess;
    const stores: RedisContextStore[] = [];
    beforeAll(async () => {
      server = await startRedisServer();
    });
    afterAll(async () => {
      for (const store of stores) await store.close();
      await server?.stop();
    });

    it('on a real redis-server', async () => {
      await compactThenUndoInANewProcess(() => {
        const store = new RedisContextStore({ url: server.url });
        stores.push(store);
        return store;
      });
    }, 30_000);
  });
});
