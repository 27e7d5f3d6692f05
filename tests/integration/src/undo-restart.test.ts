import 'reflect-metadata';

import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

import {
  type AgentManifest,
  type ChatMessage,
  createContextRuntime,
  FileContextStore,
  type IContextStore,
  type LLMPayload,
} from '@ctxkit/core';
import { ScriptedLLMClient } from '@ctxkit/core/testing';
import { RedisContextStore } from '@ctxkit/store-redis';

import { type RedisServerProcess, startRedisServer } from '../../../packages/store-redis/src/__tests__/redis-server';
import { extractorAgent } from './extractor-agent';
import { conversation } from './two-processes/session-script';

/**
 * An undo survives a process restart: an agent loaded from its plugin.json through the runtime (which
 * loads the strategy plugin from its own plugin.json) composes a payload, a reduction changes the
 * session's state, and then a new runtime with a new strategy instance on the same store (a restarted
 * process) lists the reduction, undoes it, and composes the payload from before it again, byte for byte.
 * Once on the file store, once on Redis.
 *
 * The runtime loads the plugins' dist: build with `npx tsc -b` first.
 */

const SYSTEM = 'You are an airline support agent.';
const bytes = (payload: LLMPayload): string => JSON.stringify(payload.messages);

/** Folds two turns once more than two are unsummarized; four turns do not fit, so the summary shows. */
const SUMMARIZER_AGENT: AgentManifest = {
  id: 'undo-summarizer',
  model: 'gpt-4o',
  contextStrategy: {
    type: 'plugin',
    pluginId: 'std-summarization-strategy',
    // the scripted summary names no identifiers: the summary checks are not what this test is about
    // cutBackRatio 1: a cut back's held window start lives in the process, which a restart does not keep
    config: {
      summarizer: 'llm',
      threshold: 2,
      batchTurns: 2,
      maxContextTokens: 450,
      reserveOutputTokens: 0,
      checkSummaries: false,
      cutBackRatio: 1,
    },
  },
};

// cutBackRatio 1: a cut back holds the state block sent last in the process, which a restart does not keep
const EXTRACTOR_AGENT = extractorAgent(
  'undo-extractor',
  { destination: { type: 'string' }, date: { type: 'string', format: 'date' } },
  { cutBackRatio: 1 },
);

const history1: ChatMessage[] = [{ role: 'user', content: 'I want to fly to Seattle.' }];
const history2: ChatMessage[] = [
  ...history1,
  { role: 'assistant', content: 'When do you want to fly?' },
  { role: 'user', content: 'On May 20th 2024.' },
];

/** A store the test can open again as a restarted process would: a new client on the same data. */
interface StoreUnderTest {
  name: string;
  open(): IContextStore & { close(): Promise<void> };
}

let dir: string;
let server: RedisServerProcess;

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ctxkit-undo-restart-'));
  for (const agent of [SUMMARIZER_AGENT, EXTRACTOR_AGENT])
    fs.writeFileSync(path.join(dir, `${agent.id}.plugin.json`), JSON.stringify(agent, null, 2));
  server = await startRedisServer();
});

afterAll(async () => {
  await server?.stop();
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

const STORES: StoreUnderTest[] = [
  { name: 'FileContextStore', open: () => new FileContextStore({ rootDir: path.join(dir, 'store') }) },
  { name: 'RedisContextStore', open: () => new RedisContextStore({ url: server.url }) },
];

/**
 * One process: a runtime with the agent loaded from its plugin.json on `store`, answering model calls from `script`.
 */
async function startProcess(agent: AgentManifest, store: IContextStore, script: string[]) {
  const llm = new ScriptedLLMClient(script, { name: 'scripted' });
  const runtime = await createContextRuntime();
  const handle = await runtime.loadAgent(path.join(dir, `${agent.id}.plugin.json`), { store, llm });
  return { runtime, llm, handle };
}

describe.each(STORES)('undo after a restart, on the $name', ({ name, open }) => {
  const sessionId = `undo-restart-${name}`;

  it(
    'a summarization fold: undone by a new process, the payload before the fold comes back byte for ' + 'byte',
    async () => {
      const history = conversation(4);
      const store = open();
      const first = await startProcess(SUMMARIZER_AGENT, store, [
        '<summary>\nThe user asked about reservations RES1001 and RES1002.\n</summary>',
      ]);
      const session = first.handle.forSession(sessionId);
      const before = await session.composePayload(SYSTEM, history, []);
      await session.onTurnComplete(history);
      await session.whenIdle!();
      const after = await session.composePayload(SYSTEM, history, []);
      expect(bytes(after)).not.toBe(bytes(before));
      expect(after.messages[1]!.content).toContain('<conversation_summary');
      const [epoch] = await session.epochs();
      expect(epoch).toMatchObject({ id: 'e1', kind: 'fold', range: { from: 0, to: 8 } });
      await first.runtime.dispose();
      await store.close();

      const reopened = open();
      const second = await startProcess(SUMMARIZER_AGENT, reopened, []);
      const restarted = second.handle.forSession(sessionId);
      expect(await restarted.epochs()).toEqual([epoch]);
      expect(bytes(await restarted.composePayload(SYSTEM, history, []))).toBe(bytes(after));
      const undone = await restarted.undo('e1');
      expect(undone).toEqual({ undone: epoch, alsoUndone: [] });
      expect(bytes(await restarted.composePayload(SYSTEM, history, []))).toBe(bytes(before));
      expect(await restarted.epochs()).toEqual([]);
      expect(second.llm.callCount).toBe(0);
      await second.runtime.dispose();
      await reopened.close();
    },
  );

  it(
    'an entity extraction: undone by a new process, the payload before the extraction comes back byte for byte, ' +
      'nothing extracted again',
    async () => {
      const store = open();
      const first = await startProcess(EXTRACTOR_AGENT, store, [
        '{"destination": "Seattle"}',
        '{"date": "2024-05-20"}',
      ]);
      const session = first.handle.forSession(sessionId);
      const before = await session.composePayload(SYSTEM, history1, []);
      const after = await session.composePayload(SYSTEM, history2, []);
      expect(after.messages[1]).not.toEqual(before.messages[1]);
      expect(after.messages[1]!.content).toContain('"date": "2024-05-20"');
      const epochs = await session.epochs();
      expect(epochs.map((epoch) => [epoch.id, epoch.kind, epoch.description])).toEqual([
        ['e1', 'extraction', 'extraction from message 0 changed destination (state v0 → v1)'],
        ['e2', 'extraction', 'extraction from message 2 changed date (state v1 → v2)'],
      ]);
      await first.runtime.dispose();
      await store.close();

      const reopened = open();
      const second = await startProcess(EXTRACTOR_AGENT, reopened, []);
      const restarted = second.handle.forSession(sessionId);
      expect(await restarted.epochs()).toEqual(epochs);
      const undone = await restarted.undo('e2');
      expect(undone).toEqual({ undone: epochs[1], alsoUndone: [] });
      expect(bytes(await restarted.composePayload(SYSTEM, history1, []))).toBe(bytes(before));
      // The conversation as it stands shows the state from before the extraction too: its message is not read again.
      const current = await restarted.composePayload(SYSTEM, history2, []);
      expect(current.messages[1]).toEqual(before.messages[1]);
      expect(current.messages.slice(2)).toEqual(history2);
      expect(second.llm.callCount).toBe(0);
      expect(await restarted.epochs()).toEqual([epochs[0]]);
      await second.runtime.dispose();
      await reopened.close();
    },
  );
});
