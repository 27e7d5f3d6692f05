import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

import {
  type ChatMessage,
  createContextRuntime,
  createTokenCounter,
  FileContextStore,
  type IContextStore,
  type LLMPayload,
  type MessageLife,
  type SessionExplanation,
} from '@ctxkit/core';
import { messageText } from '@ctxkit/core/strategy-kit';
import { RedisContextStore } from '@ctxkit/store-redis';
import { type RedisServerProcess, startRedisServer } from '@ctxkit/store-redis/dist/__tests__/redis-server';

import type { CliOutput } from '../cli-output';
import { bundledConversationsDir } from '../lab/bundled-transcripts';
import { isExamplePlugin } from '../lab/example-plugin';
import { labConfig, presetWindow } from '../lab/lab-config';
import { readTranscript } from '../lab/read-transcript';
import { replayConversation } from '../lab/replay-conversation';
import { sessionIdFor } from '../lab/session-id';
import type { TranscriptRecord } from '../lab/transcript-record';
import { runCli } from '../run-cli';

jest.setTimeout(120_000);

async function ctxkit(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const output: CliOutput = {
    out: (text) => void (stdout += text),
    err: (text) => void (stderr += text),
    color: false,
    interactive: false,
  };
  const code = await runCli(['node', 'ctxkit', ...args], output);
  return { code, stdout, stderr };
}

/** The first reservation id the conversation's tool calls ask about. */
function reservationIdOf(record: TranscriptRecord): string | undefined {
  for (const message of record.messages) {
    if (message.role !== 'assistant') continue;
    for (const call of message.tool_calls ?? []) {
      const id = (JSON.parse(call.function.arguments) as { reservation_id?: unknown }).reservation_id;
      if (typeof id === 'string') return id;
    }
  }
  return undefined;
}

/** What one successful compose of the replay gave. */
interface Compose {
  history: number;
  payload: LLMPayload;
}

/** Replays the record through a plugin with the session trace on, keeping every payload. */
async function replayTraced(store: IContextStore, pluginId: string, record: TranscriptRecord): Promise<Compose[]> {
  const runtime = await createContextRuntime({ store, sessionTrace: true });
  try {
    const plugins = runtime.listPlugins().map((plugin) => ({ id: plugin.id, directory: plugin.directory }));
    const window = presetWindow('tau-bench')!;
    const plugin = runtime.getPlugin(pluginId)!;
    const config = labConfig(
      { id: plugin.id, directory: plugin.directory, configSchema: plugin.configSchema },
      'tau-bench',
      window,
      plugins,
    );
    const agent = await runtime.loadAgent({ id: pluginId, contextStrategy: { type: 'plugin', pluginId, config } });
    const composes: Compose[] = [];
    await replayConversation({
      manager: agent.forSession(sessionIdFor(record.id)),
      record,
      counter: createTokenCounter({ model: 'gpt-4o' }),
      window,
      onCall: (observation, payload) => {
        if (payload !== undefined)
          composes.push({ history: observation.historyLength, payload: payload as LLMPayload });
      },
    });
    return composes;
  } finally {
    await runtime.dispose();
  }
}

/** The same message with the same text (a tool output may carry an `output_ref` to its stored whole). */
const sameMessage = (a: ChatMessage, b: ChatMessage) =>
  a.role === b.role &&
  messageText(a) === messageText(b) &&
  (a.role !== 'tool' || (b.role === 'tool' && a.tool_call_id === b.tool_call_id));

/** Checks each state of the message's timeline against the stats (and the payload) of that compose. */
function checkAgainstStats(life: MessageLife, message: ChatMessage, composes: readonly Compose[], pluginId = ''): void {
  const i = life.index;
  // Every compose whose history held the message is in the timeline, in order, and no other.
  expect(life.calls.map((state) => state.call)).toEqual(
    composes.flatMap((compose, at) => (compose.history > i ? [at + 1] : [])),
  );
  for (const state of life.calls) {
    const { payload } = composes[state.call - 1]!;
    const covering = payload.stats.reductions.filter((record) => record.from <= i && i < record.to);
    const sentAsIs = payload.messages.some((sent) => sameMessage(sent, message));
    const where = `${pluginId}: message ${i} at call ${state.call} (${state.state})`;
    switch (state.state) {
      case 'verbatim':
        expect({ where, sentAsIs }).toEqual({ where, sentAsIs: true });
        break;
      case 'summarized':
        expect({
          where,
          holds: covering.some(
            (record) =>
              record.action === 'summarized' &&
              (state.summaryVersion === undefined ||
                record.refs?.includes(`summary:${state.summaryVersion}`) ||
                payload.stats.extra?.summaryVersion === state.summaryVersion),
          ),
        }).toEqual({ where, holds: true });
        expect({ where, sentAsIs }).toEqual({ where, sentAsIs: false });
        break;
      case 'trimmed': {
        expect({ where, covered: covering.some((record) => record.action === 'trimmed') }).toEqual({
          where,
          covered: true,
        });
        const view = payload.messages.find(
          (sent) => sent.role === 'tool' && message.role === 'tool' && sent.tool_call_id === message.tool_call_id,
        );
        expect({ where, ref: view?.role === 'tool' ? view.output_ref?.id : undefined }).toEqual({
          where,
          ref: state.refs?.[0],
        });
        break;
      }
      default:
        expect({ where, covered: covering.some((record) => record.action === state.state) }).toEqual({
          where,
          covered: true,
        });
        if (state.state === 'dropped') expect({ where, sentAsIs }).toEqual({ where, sentAsIs: false });
    }
  }
}

describe('ctxkit explain', () => {
  let tmp: string;
  let record: TranscriptRecord;
  let reservation: string;
  let transcript: string;
  let strategies: string[];

  beforeAll(async () => {
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'ctxkit-explain-'));
    const records = await readTranscript(path.join(bundledConversationsDir(), 'tau-bench-airline.jsonl'), { limit: 3 });
    // The first bundled session long enough for every strategy to reduce something, that names a reservation.
    record = records.find((candidate) => candidate.messages.length >= 20 && reservationIdOf(candidate) !== undefined)!;
    reservation = reservationIdOf(record)!;
    transcript = path.join(tmp, 'conversation.jsonl');
    fs.writeFileSync(transcript, `${JSON.stringify(record)}\n`);
    const runtime = await createContextRuntime({});
    strategies = runtime
      .listPlugins()
      .filter((plugin) => !isExamplePlugin(plugin))
      .map((plugin) => plugin.id);
    await runtime.dispose();
  });
  afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

  it(
    'finds every message holding a reservation id under each standard strategy, each state as the recorded stats ' +
      'say',
    async () => {
      const storeDir = path.join(tmp, 'store');
      const history = record.messages.slice(1);
      const holding = history.flatMap((message, index) =>
        JSON.stringify(message).includes(reservation) ? [index] : [],
      );
      expect(holding.length).toBeGreaterThan(1);
      const statesSeen = new Set<string>();
      expect(strategies.length).toBeGreaterThanOrEqual(5);
      for (const pluginId of strategies) {
        const composes = await replayTraced(new FileContextStore({ rootDir: storeDir }), pluginId, record);
        const { code, stdout } = await ctxkit(
          'explain',
          '--store',
          storeDir,
          '--agent',
          pluginId,
          '--session',
          sessionIdFor(record.id),
          '--find',
          reservation,
          '--transcript',
          transcript,
          '--json',
        );
        expect(code).toBe(0);
        const explanation = JSON.parse(stdout) as SessionExplanation;
        expect({ pluginId, calls: explanation.calls }).toEqual({ pluginId, calls: composes.length });
        expect({ pluginId, found: explanation.messages.map((life) => life.index) }).toEqual({
          pluginId,
          found: holding,
        });
        for (const life of explanation.messages) {
          checkAgainstStats(life, history[life.index]!, composes, pluginId);
          for (const state of life.calls) statesSeen.add(state.state);
        }
      }
      // The replay exercises the trace: messages left the window, were folded, trimmed behind a ref and recalled.
      expect([...statesSeen].sort()).toEqual(
        expect.arrayContaining(['dropped', 'recalled', 'summarized', 'trimmed', 'verbatim']),
      );
    },
  );

  it('prints the life of each message, and writes the same as a timeline page', async () => {
    const storeDir = path.join(tmp, 'store-text');
    const composes = await replayTraced(
      new FileContextStore({ rootDir: storeDir }),
      'std-tool-output-cache-strategy',
      record,
    );
    const html = path.join(tmp, 'timeline.html');
    const { code, stdout } = await ctxkit(
      'explain',
      '--store',
      storeDir,
      '--agent',
      'std-tool-output-cache-strategy',
      '--session',
      sessionIdFor(record.id),
      '--find',
      reservation,
      '--transcript',
      transcript,
      '--html',
      html,
    );
    expect(code).toBe(0);
    expect(stdout).toContain(`the trace holds calls 1 to ${composes.length}`);
    expect(stdout).toMatch(
      new RegExp(
        String.raw`message #\d+ \(tool, answers call_\w+\)\n {2}first seen at call \d+\n {2}sent verbat` +
          String.raw`im from call \d+ to call \d+\n {2}trimmed behind ref to_\w+`,
      ),
    );
    expect(stdout).toMatch(/still readable through ref to_\w+ \(in the store\)/);
    const page = fs.readFileSync(html, 'utf8');
    expect(page).toContain('<!doctype html>');
    expect(page.match(/class="timeline"/g)?.length).toBe(stdout.match(/^message #/gm)?.length);
    expect(page).toContain('trimmed behind ref to_');
  });

  describe('on Redis', () => {
    let server: RedisServerProcess;
    beforeAll(async () => {
      server = await startRedisServer();
    });
    afterAll(async () => {
      await server.stop();
    });

    it('reads the trace from a redis:// URL', async () => {
      const store = new RedisContextStore({ url: server.url });
      const composes = await replayTraced(store, 'std-sliding-window-strategy', record);
      await store.close();
      const { code, stdout } = await ctxkit(
        'explain',
        '--store',
        server.url,
        '--agent',
        'std-sliding-window-strategy',
        '--session',
        sessionIdFor(record.id),
        '--find',
        reservation,
        '--transcript',
        transcript,
        '--json',
      );
      expect(code).toBe(0);
      const explanation = JSON.parse(stdout) as SessionExplanation;
      expect(explanation.calls).toBe(composes.length);
      for (const life of explanation.messages) checkAgainstStats(life, record.messages[life.index + 1]!, composes);
    });
  });

  it.each([
    [
      'a store it cannot read',
      ['--store', 'postgres://localhost/ctxkit'],
      'postgres:// is not a store ctxkit explain can read',
    ],
    ['a path that is not a directory', ['--store', 'no-such-dir'], 'is not a directory'],
  ])('fails with a typed error on %s', async (_, store, problem) => {
    const { code, stderr } = await ctxkit(
      'explain',
      ...store,
      '--agent',
      'a',
      '--session',
      's',
      '--find',
      'x',
      '--transcript',
      transcript,
    );
    expect(code).toBe(1);
    expect(stderr).toContain('error CTXKIT_TRACE_UNREADABLE');
    expect(stderr).toContain(problem);
  });

  it('names the traced sessions when the session has no trace', async () => {
    const storeDir = path.join(tmp, 'store-missing');
    await replayTraced(new FileContextStore({ rootDir: storeDir }), 'std-sliding-window-strategy', record);
    const { code, stderr } = await ctxkit(
      'explain',
      '--store',
      storeDir,
      '--agent',
      'std-sliding-window-strategy',
      '--session',
      'another',
      '--find',
      reservation,
      '--transcript',
      transcript,
      '--conversation',
      record.id,
    );
    expect(code).toBe(1);
    expect(stderr).toContain('has no trace for agent "std-sliding-window-strategy", session "another"');
  });
});
