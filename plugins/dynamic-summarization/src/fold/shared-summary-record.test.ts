import { MemoryContextStore, type StoreKey } from '@ctxkit/core';

import { emptySummaryRecord, type SummaryRecord, type SummaryState } from '../summary-state';
import { SharedSummaryRecord } from './shared-summary-record';

const key: StoreKey = { agentId: 'agent', sessionId: 's1', kind: 'summary', name: 'buffer' };

function summary(version: number, text = `Summary ${version}.`): SummaryState {
  return {
    format: 1,
    version,
    text,
    coveredMessages: version * 4,
    coveredTurns: version * 2,
    fingerprint: `fp-${version}`,
    summaryTokens: 5,
    coveredTokens: 100,
    summarizer: { name: 'offline', model: 'none', offline: true },
    updatedAt: 0,
  };
}

const withSummary = (state: SummaryState | null): SummaryRecord => ({ ...emptySummaryRecord(), summary: state });

describe('SharedSummaryRecord', () => {
  it('computes a refused update again from what the other writer stored, so neither write is lost', async () => {
    const store = new MemoryContextStore();
    const mine = new SharedSummaryRecord(store, key);
    const theirs = new SharedSummaryRecord(store, key);
    await mine.refresh();
    await theirs.refresh();
    await theirs.update(() => withSummary(summary(1)));
    const seen: Array<SummaryState | null> = [];
    const written = await mine.update((current) => {
      seen.push(current.summary);
      return { ...current, fold: { id: 'mine', batchKey: 'b', turn: 3, expiresAt: 10 } };
    });
    expect(seen.map((state) => state?.version ?? null)).toEqual([null, 1]);
    expect(written).toMatchObject({ summary: { version: 1 }, fold: { id: 'mine' } });
    await expect(store.get(key)).resolves.toEqual(written);
  });

  it('writes nothing when the change finds its work outdated', async () => {
    const store = new MemoryContextStore();
    const record = new SharedSummaryRecord(store, key);
    await expect(record.update(() => undefined)).resolves.toBeUndefined();
    await expect(store.get(key)).resolves.toBeUndefined();
  });

  it(
    'keeps the summary object across reads while the summary is the same, and replaces it when it ' + 'changes',
    async () => {
      const store = new MemoryContextStore();
      const record = new SharedSummaryRecord(store, key);
      await store.set(key, withSummary(summary(1)));
      await record.refresh();
      const first = record.current.summary;
      await store.set(key, { ...withSummary(summary(1)), fold: { id: 'x', batchKey: 'b', turn: 5, expiresAt: 1 } });
      await record.refresh();
      expect(record.current.summary).toBe(first);
      expect(record.current.fold?.id).toBe('x');
      await store.set(key, withSummary(summary(2)));
      await record.refresh();
      expect(record.current.summary).not.toBe(first);
      expect(record.current.summary?.version).toBe(2);
    },
  );

  it('uses an override until the next read', async () => {
    const store = new MemoryContextStore();
    await store.set(key, withSummary(summary(1)));
    const record = new SharedSummaryRecord(store, key);
    await record.refresh();
    record.useUntilNextRead(emptySummaryRecord());
    expect(record.current.summary).toBeNull();
    await record.refresh();
    expect(record.current.summary?.version).toBe(1);
  });

  it('reads a value that is not a record as the empty record', async () => {
    const store = new MemoryContextStore();
    await store.set(key, { something: 'else' });
    const record = new SharedSummaryRecord(store, key);
    await record.refresh();
    expect(record.current).toEqual(emptySummaryRecord());
  });
});
