import { type ChatMessage, type IContextStore, MemoryContextStore, type StoreKey } from '@ctxkit/core';
import { createConformanceContext, loadConversations, type RecordedEvent } from '@ctxkit/core/testing';

import { createStrategy } from './create-summarization-strategy';
import type { SummarizationConfig } from './summarization-config';
import type { SummaryRecord } from './summary-state';
import { reservationTurn } from './test-support';

const SYSTEM = 'You are a helpful airline agent.';
const AGENT = 'airline';
const SESSION = 'session-1';
const RECORD_KEY: StoreKey = { agentId: AGENT, sessionId: SESSION, kind: 'summary', name: 'buffer' };

/** The first `turns` turns, the same message objects every time (as a host's growing history). */
const ALL_TURNS = Array.from({ length: 10 }, (_, index) => reservationTurn(index + 1)).flat();
const conversation = (turns: number): ChatMessage[] => ALL_TURNS.slice(0, turns * 4);

/** Folds two turns once more than two are unsummarized (turns of four messages: folds end at 8, 16, 24…). */
const CONFIG: Partial<SummarizationConfig> = { summarizer: 'offline', threshold: 2, batchTurns: 2, retryBackoffMs: 0 };

/** One process serving the session: its own strategy instance and events, the shared store and clock. */
function instance(store: IContextStore, clock: { now: number }) {
  const { context, events } = createConformanceContext(
    SESSION,
    { agentId: AGENT, strategyId: 'std-summarization-strategy', store, llm: undefined, now: () => clock.now },
    undefined,
  );
  return { strategy: createStrategy(CONFIG, context), events };
}

type Instance = ReturnType<typeof instance>;

async function turnEnd(server: Instance, history: ChatMessage[]): Promise<void> {
  await server.strategy.onTurnComplete(history);
  await server.strategy.whenIdle();
}

const named = (events: RecordedEvent[], name: string): RecordedEvent[] => events.filter((event) => event.name === name);

/** The fold ranges the session's epochs name, oldest first. */
async function foldRanges(server: Instance): Promise<string[]> {
  return (await server.strategy.epochs()).map((epoch) => `${epoch.range!.from}-${epoch.range!.to}`);
}

/** True when the ranges follow each other from message 0 on: no message folded twice, none skipped. */
function contiguous(ranges: string[]): boolean {
  let end = 0;
  for (const range of ranges) {
    const [from, to] = range.split('-').map(Number) as [number, number];
    if (from !== end || to <= from) return false;
    end = to;
  }
  return true;
}

describe('SummarizationStrategy: late requests of instances sharing one store', () => {
  it(
    'leaves the shared summary as it is when a turn report or a compose carries a shorter history than it covers, ' +
      'and folding goes on from where it was',
    async () => {
      const store = new MemoryContextStore();
      const clock = { now: Date.UTC(2025, 0, 1) };
      const a = instance(store, clock);
      const b = instance(store, clock);
      for (let turns = 1; turns <= 5; turns++) await turnEnd(a, conversation(turns));
      const before = await store.getVersioned(RECORD_KEY);
      expect((before!.value as SummaryRecord).summary).toMatchObject({ version: 2, coveredMessages: 16 });
      expect(await foldRanges(a)).toEqual(['0-8', '8-16']);

      // Another process reports the end of turn 3 late: the history has 12 messages, the summary covers 16.
      await turnEnd(b, conversation(3));
      expect(await store.getVersioned(RECORD_KEY)).toEqual(before);

      // And composes turn 4 late: the payload is the history alone, and nothing is written.
      const late = [...conversation(3), reservationTurn(4)[0]!];
      const payload = await b.strategy.composePayload(SYSTEM, late, []);
      await b.strategy.whenIdle();
      expect(payload.messages.slice(1)).toEqual(late);
      expect(payload.stats.extra).toMatchObject({
        summaryAheadOfHistory: true,
        summaryIncluded: false,
        coveredMessages: 0,
      });
      expect(await store.getVersioned(RECORD_KEY)).toEqual(before);
      expect(named(b.events, 'summary-resync')).toEqual([]);
      expect(named(b.events, 'summary-start')).toEqual([]);

      // The first process goes on folding from message 16; the other one uses the summary at once.
      for (let turns = 6; turns <= 7; turns++) await turnEnd(a, conversation(turns));
      expect(await foldRanges(a)).toEqual(['0-8', '8-16', '16-24']);
      expect(await a.strategy.getSummaryState()).toMatchObject({ version: 3, coveredMessages: 24, coveredTurns: 6 });
      const current = await b.strategy.composePayload(SYSTEM, [...conversation(7), reservationTurn(8)[0]!], []);
      expect(current.stats.extra).toMatchObject({
        summaryAheadOfHistory: false,
        summaryVersion: 3,
        coveredMessages: 24,
      });
      expect(named(a.events, 'summary-resync')).toEqual([]);
    },
  );

  it(
    'serves a tau-bench conversation from three instances with turn reports arriving late: the coverage of one ' +
      'instance serving it in order, no message folded twice',
    async () => {
      const record = loadConversations('tau-bench-airline').find(
        (candidate) => candidate.history.filter((message) => message.role === 'user').length >= 12,
      )!;
      const history = record.history;
      const users = history.flatMap((message, index) => (message.role === 'user' ? [index] : []));
      // Turn k: its compose carries the history up to its user message, its report the history up to the next one.
      const requests = users.map((start) => history.slice(0, start + 1));
      const reports = users.map((_, k) => history.slice(0, users[k + 1] ?? history.length));

      const inOrder = instance(new MemoryContextStore(), { now: Date.UTC(2025, 0, 1) });
      for (let k = 0; k < users.length; k++) {
        await inOrder.strategy.composePayload(record.systemPrompt, requests[k]!, []);
        await turnEnd(inOrder, reports[k]!);
      }
      const expected = await inOrder.strategy.getSummaryState();
      expect(expected!.version).toBeGreaterThanOrEqual(3);
      expect(contiguous(await foldRanges(inOrder))).toBe(true);

      // Every third turn is served four turns late (the last one arrives last).
      const order: number[] = [];
      const heldUntil = new Map<number, number>();
      for (let k = 0; k < users.length; k++) {
        if (k % 3 === 1 && k + 4 < users.length - 1) heldUntil.set(k + 4, k);
        else order.push(k);
        if (heldUntil.has(k)) order.push(heldUntil.get(k)!);
      }
      expect([...order].sort((x, y) => x - y)).toEqual(users.map((_, k) => k));

      const store = new MemoryContextStore();
      const clock = { now: Date.UTC(2025, 0, 1) };
      const servers = [instance(store, clock), instance(store, clock), instance(store, clock)];
      let lateComposes = 0;
      for (const [step, k] of order.entries()) {
        const server = servers[step % servers.length]!;
        const payload = await server.strategy.composePayload(record.systemPrompt, requests[k]!, []);
        if ((payload.stats.extra as { summaryAheadOfHistory: boolean }).summaryAheadOfHistory) lateComposes++;
        await turnEnd(server, reports[k]!);
        clock.now += 1000;
      }
      const ranges = await foldRanges(servers[0]!);
      expect(ranges).toEqual(await foldRanges(inOrder));
      expect(contiguous(ranges)).toBe(true);
      const shared = await servers[1]!.strategy.getSummaryState();
      expect(shared).toMatchObject({
        coveredMessages: expected!.coveredMessages,
        coveredTurns: expected!.coveredTurns,
        fingerprint: expected!.fingerprint,
      });
      const events = servers.flatMap((server) => server.events);
      expect(named(events, 'summary-end')).toHaveLength(ranges.length);
      expect(named(events, 'summary-resync')).toEqual([]);
      // Some requests came after the summary had passed them.
      expect(lateComposes).toBeGreaterThan(0);
    },
  );

  it(
    're-syncs a rewritten history, shorter than the summary covers or not: an edited covered message drops the ' +
      'summary for every instance',
    async () => {
      const store = new MemoryContextStore();
      const clock = { now: Date.UTC(2025, 0, 1) };
      const a = instance(store, clock);
      const b = instance(store, clock);
      for (let turns = 1; turns <= 5; turns++) await turnEnd(a, conversation(turns));
      expect(await a.strategy.getSummaryState()).toMatchObject({ version: 2, coveredMessages: 16 });

      // Shorter than the summary covers, and its first message differs from the one the first fold covered.
      const edited = [
        { role: 'user', content: 'A different first question.' } as ChatMessage,
        ...conversation(3).slice(1),
        reservationTurn(4)[0]!,
      ];
      const payload = await b.strategy.composePayload(SYSTEM, edited, []);
      expect(payload.messages.slice(1)).toEqual(edited);
      const [resync, ...more] = named(b.events, 'summary-resync');
      expect(more).toEqual([]);
      expect(resync!.payload.reason).toMatch(
        /^the first 8 messages of the history differ from those the summary covers/,
      );
      expect(payload.stats.extra).toMatchObject({ summaryAheadOfHistory: false, summaryIncluded: false });
      await b.strategy.whenIdle();
      expect(await a.strategy.getSummaryState()).toBeNull();

      // As long as the summary covers, or longer: re-synced as well.
      const other = instance(new MemoryContextStore(), clock);
      for (let turns = 1; turns <= 5; turns++) await turnEnd(other, conversation(turns));
      const longer = [
        { role: 'user', content: 'A different first question.' } as ChatMessage,
        ...conversation(5).slice(1),
      ];
      await turnEnd(other, longer);
      expect(named(other.events, 'summary-resync').map((event) => event.payload.reason)).toEqual([
        expect.stringMatching(/^the first 16 messages of the history differ/),
      ]);
    },
  );
});
