import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

import type { ChatMessage } from '../contracts/chat-message';
import type { IContextStore } from '../contracts/context-store';
import type { LLMPayload, PayloadStats, ReductionRecord } from '../contracts/llm-payload';
import type { StrategyFactory } from '../plugins/strategy-plugin';
import type { ContextRuntimeOptions } from '../runtime/context-runtime';
import { createContextRuntime } from '../runtime/create-context-runtime';
import { FileContextStore } from '../stores/file-context-store';
import { MemoryContextStore } from '../stores/memory-context-store';
import { explainSession } from './explain-session';
import { readSessionTrace } from './read-session-trace';
import { SESSION_TRACES_ID, sessionTraceSegmentKey } from './session-trace';

const SECRET = 'S61CZX-never-in-the-trace';

/** Keeps the last `keep` messages and reports the rest as one `dropped` range, as a sliding window does. */
const lastMessages: StrategyFactory = (config) => ({
  async composePayload(systemPrompt: string, history: ChatMessage[]): Promise<LLMPayload> {
    const keep = (config as { keep: number }).keep;
    const cut = Math.max(0, history.length - keep);
    const reductions: ReductionRecord[] =
      cut > 0
        ? [
            {
              action: 'dropped',
              from: 0,
              to: cut,
              messages: cut,
              reason: 'older than the window',
              recoverableFrom: 'history',
            },
          ]
        : [];
    const messages: ChatMessage[] = [{ role: 'system', content: systemPrompt }, ...history.slice(cut)];
    return { messages, tools: [], stats: { reductions, extra: {} } as unknown as PayloadStats };
  },
  async onTurnComplete() {},
});

async function runtimeWith(options: ContextRuntimeOptions) {
  const runtime = await createContextRuntime({ discoverInstalled: false, ...options });
  runtime.registerStrategy(
    {
      id: 'last-messages-strategy',
      configSchema: {
        type: 'object',
        properties: { keep: { type: 'integer', default: 4 }, model: { type: 'string' } },
      },
    },
    lastMessages,
  );
  return runtime;
}

const manifest = {
  id: 'support-bot',
  contextStrategy: { type: 'plugin', pluginId: 'last-messages-strategy', config: { keep: 4 } },
};

function conversation(length: number): ChatMessage[] {
  return Array.from({ length }, (_, index): ChatMessage =>
    index % 2 === 0
      ? { role: 'user', content: `question ${index}: ${SECRET}` }
      : { role: 'assistant', content: `answer ${index}` },
  );
}

/** Bytes the session's trace takes in the store: both segments. */
async function storedBytes(store: IContextStore, sessionId = 'conversation-1'): Promise<number> {
  const segments = await Promise.all(
    [0, 1].map((segment) => store.blobSize(sessionTraceSegmentKey('support-bot', sessionId, segment as 0 | 1))),
  );
  return segments.reduce<number>((sum, size) => sum + (size ?? 0), 0);
}

/** The segments' text as stored. */
async function storedText(store: IContextStore): Promise<string> {
  let text = '';
  for (const segment of [0, 1] as const) {
    const key = sessionTraceSegmentKey('support-bot', 'conversation-1', segment);
    if ((await store.blobSize(key)) === undefined) continue;
    for await (const chunk of store.readBlob(key)) text += Buffer.from(chunk).toString('utf8');
  }
  return text;
}

/** Composes once per message of `history`, each with the history so far. */
async function composeEach(
  store: IContextStore,
  options: ContextRuntimeOptions,
  history: ChatMessage[],
  from = 1,
): Promise<void> {
  const runtime = await runtimeWith({ store, ...options });
  const agent = await runtime.loadAgent(manifest);
  const session = agent.forSession('conversation-1');
  for (let end = from; end <= history.length; end++)
    await session.composePayload('You help.', history.slice(0, end), []);
  await runtime.dispose();
}

describe('session trace', () => {
  it('is off by default: nothing is written', async () => {
    const store = new MemoryContextStore();
    await composeEach(store, {}, conversation(6));
    await expect(store.listBlobs({ agentId: 'support-bot' })).resolves.toEqual([]);
    await expect(readSessionTrace(store, 'support-bot', 'conversation-1')).rejects.toMatchObject({
      code: 'CTXKIT_TRACE_UNREADABLE',
    });
  });

  it('records every compose by index, never the text', async () => {
    const store = new MemoryContextStore();
    await composeEach(store, { sessionTrace: true }, conversation(8));
    const trace = await readSessionTrace(store, 'support-bot', 'conversation-1');
    expect(trace.entries.map((entry) => entry.call)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    expect(trace.entries.map((entry) => entry.history)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    expect(trace.entries[7]!.reductions).toEqual([
      { action: 'dropped', from: 0, to: 4, messages: 4, reason: 'older than the window' },
    ]);
    expect(trace.entries[7]!.sent).toBe(5);
    const text = await storedText(store);
    // A header line, then one line per compose.
    expect(text.split('\n').filter(Boolean)).toHaveLength(9);
    expect(text).not.toContain(SECRET);
  });

  it.each([1_024, 4_096])('stays within maxBytes %i however many composes it records', async (maxBytes) => {
    const store = new MemoryContextStore();
    await composeEach(store, { sessionTrace: { maxBytes } }, conversation(300));
    expect(await storedBytes(store)).toBeLessThanOrEqual(maxBytes);
    const stored = await readSessionTrace(store, 'support-bot', 'conversation-1');
    expect(stored.evicted).toBeGreaterThan(0);
    // The newest composes are kept, contiguous, and the count of those left out adds up.
    const calls = stored.entries.map((entry) => entry.call);
    expect(calls[calls.length - 1]).toBe(300);
    expect(calls).toEqual(Array.from({ length: calls.length }, (_, index) => 301 - calls.length + index));
    expect(stored.evicted + stored.entries.length).toBe(300);
    // It does not keep less than it may: at least a third of the bound holds entries.
    expect(await storedBytes(store)).toBeGreaterThan(maxBytes / 3);
  });

  it('continues the trace an earlier process stored, within the same bound', async () => {
    const store = new MemoryContextStore();
    const history = conversation(40);
    await composeEach(store, { sessionTrace: { maxBytes: 2_048 } }, history.slice(0, 20));
    await composeEach(store, { sessionTrace: { maxBytes: 2_048 } }, history, 21);
    const trace = await readSessionTrace(store, 'support-bot', 'conversation-1');
    expect(trace.entries[trace.entries.length - 1]).toMatchObject({ call: 40, history: 40 });
    expect(trace.evicted + trace.entries.length).toBe(40);
    expect(await storedBytes(store)).toBeLessThanOrEqual(2_048);
  });

  it('refuses a size below 1,024 bytes with the fix', async () => {
    await expect(runtimeWith({ sessionTrace: { maxBytes: 100 } })).rejects.toMatchObject({
      code: 'CTXKIT_CONFIG_INVALID',
    });
  });

  it('loadAgent can turn it on for one agent', async () => {
    const store = new MemoryContextStore();
    const runtime = await runtimeWith({ store });
    const traced = await runtime.loadAgent(manifest, { sessionTrace: true });
    const untraced = await runtime.loadAgent({ ...manifest, id: 'other-bot' });
    await traced.forSession('s').composePayload('You help.', conversation(1), []);
    await untraced.forSession('s').composePayload('You help.', conversation(1), []);
    await runtime.dispose();
    await expect(readSessionTrace(store, 'support-bot', 's')).resolves.toMatchObject({ entries: [{ call: 1 }] });
    await expect(readSessionTrace(store, 'other-bot', 's')).rejects.toMatchObject({ code: 'CTXKIT_TRACE_UNREADABLE' });
  });

  it('explains, through the in-process API on the memory store, when a message left the window', async () => {
    const store = new MemoryContextStore();
    const history = conversation(10);
    await composeEach(store, { sessionTrace: true }, history);
    const trace = await readSessionTrace(store, 'support-bot', 'conversation-1');
    const explanation = explainSession(trace, history, 'question 2:');
    expect(explanation.messages).toHaveLength(1);
    const [life] = explanation.messages;
    // Message 2 is in the history from call 3; kept while among the last 4 (calls 3 to 6), dropped from call 7.
    expect(life).toMatchObject({ index: 2, role: 'user', firstSeen: 3 });
    expect(life!.spans).toEqual([
      { state: 'verbatim', from: 3, to: 6 },
      { state: 'dropped', reason: 'older than the window', from: 7, to: 10 },
    ]);
  });

  it('names the sessions that have a trace when asked for one that has none', async () => {
    const store = new MemoryContextStore();
    await composeEach(store, { sessionTrace: true }, conversation(2));
    await expect(readSessionTrace(store, 'support-bot', 'conversation-2')).rejects.toMatchObject({
      code: 'CTXKIT_TRACE_UNREADABLE',
      fix: expect.stringContaining('conversation-1'),
    });
  });

  it("keeps every session's trace in the agent's one place: a new session adds a file, not a directory", async () => {
    const rootDir = fs.mkdtempSync(path.join(os.tmpdir(), 'ctxkit-trace-'));
    try {
      const store = new FileContextStore({ rootDir });
      const runtime = await runtimeWith({ store, sessionTrace: true });
      const agent = await runtime.loadAgent(manifest);
      const longId = `ticket/${'x'.repeat(190)}`;
      for (const sessionId of ['conversation-1', 'conversation-2', longId])
        await agent.forSession(sessionId).composePayload('You help.', conversation(3), []);
      await runtime.dispose();
      // Nothing under the sessions' own ids; one directory holds the three traces.
      for (const sessionId of ['conversation-1', 'conversation-2', longId])
        await expect(store.listBlobs({ agentId: 'support-bot', sessionId })).resolves.toEqual([]);
      const keys = await store.listBlobs({ agentId: 'support-bot' });
      expect(new Set(keys.map((key) => key.sessionId))).toEqual(new Set([SESSION_TRACES_ID]));
      expect(keys).toHaveLength(3);
      const blobDirs = fs.readdirSync(path.join(rootDir, 'blobs', 'support-bot'));
      expect(blobDirs).toEqual([SESSION_TRACES_ID]);
      // A session id too long to name a blob is read back whole, and named among the traced sessions.
      await expect(readSessionTrace(store, 'support-bot', longId)).resolves.toMatchObject({
        sessionId: longId,
        entries: [{ call: 1 }],
      });
      await expect(readSessionTrace(store, 'support-bot', 'conversation-3')).rejects.toMatchObject({
        details: { traced: ['conversation-1', 'conversation-2', longId] },
      });
    } finally {
      fs.rmSync(rootDir, { recursive: true, force: true });
    }
  });
});
