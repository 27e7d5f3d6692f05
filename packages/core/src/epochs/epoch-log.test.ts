import { EpochNotFoundError } from '../errors/epoch-not-found-error';
import { MemoryContextStore } from '../stores/memory-context-store';
import { EpochLog } from './epoch-log';

function logOn(store: MemoryContextStore, maxEpochs?: number): EpochLog {
  let clock = 1_000;
  return new EpochLog({
    store,
    agentId: 'agent',
    sessionId: 's1',
    now: () => clock++,
    ...(maxEpochs === undefined ? {} : { maxEpochs }),
  });
}

describe('EpochLog', () => {
  it('records epochs in order with ids e1, e2, … and lists them', async () => {
    const log = logOn(new MemoryContextStore());
    const first = await log.record({ kind: 'fold', turn: 3, description: 'folded 0–4' }, { summary: null });
    const second = await log.record({ kind: 'extraction', turn: 4, description: 'state v2' }, { state: 1 });
    expect([first.id, second.id]).toEqual(['e1', 'e2']);
    expect((await log.list()).map((epoch) => epoch.id)).toEqual(['e1', 'e2']);
    expect(first.at).toBeLessThan(second.at);
  });

  it('takes an epoch with every later one and hands back the state saved before it', async () => {
    const store = new MemoryContextStore();
    const log = logOn(store);
    await log.record({ kind: 'fold', turn: 1, description: 'a' }, { v: 0 });
    await log.record({ kind: 'fold', turn: 2, description: 'b' }, { v: 1 });
    await log.record({ kind: 'fold', turn: 3, description: 'c' }, { v: 2 });
    const taken = await log.take<{ v: number }>('e2');
    expect(taken.before).toEqual({ v: 1 });
    expect(taken.undone.id).toBe('e2');
    expect(taken.alsoUndone.map((epoch) => epoch.id)).toEqual(['e3']);
    expect((await log.list()).map((epoch) => epoch.id)).toEqual(['e1']);
    // What the undone epochs saved is gone from the store.
    const names = (await store.list({ agentId: 'agent', sessionId: 's1', kind: 'state' }))
      .map((key) => key.name)
      .sort();
    expect(names).toHaveLength(2);
    expect(names[0]).toMatch(/^epoch:e1\./);
    expect(names[1]).toBe('epochs');
    // Ids are never reused after an undo.
    expect((await log.record({ kind: 'fold', turn: 4, description: 'd' }, {})).id).toBe('e4');
  });

  it('peeks at what taking an epoch would hand back without removing anything', async () => {
    const log = logOn(new MemoryContextStore());
    await log.record({ kind: 'fold', turn: 1, description: 'a' }, { v: 0 });
    await log.record({ kind: 'fold', turn: 2, description: 'b' }, { v: 1 });
    await log.record({ kind: 'fold', turn: 3, description: 'c' }, { v: 2 });
    const peeked = await log.peek<{ v: number }>('e2');
    expect(peeked.before).toEqual({ v: 1 });
    expect([peeked.undone.id, ...peeked.alsoUndone.map((epoch) => epoch.id)]).toEqual(['e2', 'e3']);
    expect((await log.list()).map((epoch) => epoch.id)).toEqual(['e1', 'e2', 'e3']);
    expect(await log.take('e2')).toEqual(peeked);
    await expect(log.peek('e2')).rejects.toBeInstanceOf(EpochNotFoundError);
  });

  it('refuses an epoch it does not have, suggesting the closest id', async () => {
    const log = logOn(new MemoryContextStore());
    await expect(log.take('e1')).rejects.toBeInstanceOf(EpochNotFoundError);
    await log.record({ kind: 'trim', turn: 1, description: 'a' }, {});
    await log.take('e1');
    await expect(log.take('e1')).rejects.toThrow(/no epoch "e1"/);
    await log.record({ kind: 'trim', turn: 1, description: 'b' }, {});
    await expect(log.take('e20')).rejects.toThrow(/did you mean "e2"/);
  });

  it('forgets the oldest epochs beyond maxEpochs, with what they saved', async () => {
    const store = new MemoryContextStore();
    const log = logOn(store, 2);
    for (let i = 0; i < 4; i++) await log.record({ kind: 'fold', turn: i, description: String(i) }, { i });
    expect((await log.list()).map((epoch) => epoch.id)).toEqual(['e3', 'e4']);
    await expect(log.take('e1')).rejects.toBeInstanceOf(EpochNotFoundError);
    expect((await store.list({ agentId: 'agent', sessionId: 's1', kind: 'state' })).length).toBe(3);
  });

  it('two logs on one store (two processes) never give two epochs one id', async () => {
    const store = new MemoryContextStore();
    const a = logOn(store);
    const b = logOn(store);
    const recorded = await Promise.all([
      a.record({ kind: 'fold', turn: 1, description: 'a' }, { from: 'a' }),
      b.record({ kind: 'fold', turn: 1, description: 'b' }, { from: 'b' }),
      a.record({ kind: 'fold', turn: 2, description: 'a2' }, { from: 'a2' }),
    ]);
    expect(new Set(recorded.map((epoch) => epoch.id)).size).toBe(3);
    const listed = await a.list();
    expect(listed.map((epoch) => epoch.id).sort()).toEqual(recorded.map((epoch) => epoch.id).sort());
    // Each epoch hands back what its own writer saved (newest first, so that none undoes another).
    for (const epoch of [...recorded].sort((x, y) => Number(y.id.slice(1)) - Number(x.id.slice(1)))) {
      const taken = await b.take<{ from: string }>(epoch.id);
      expect(taken.before.from).toBe(epoch.description);
    }
  });
});

describe('EpochLog#undo', () => {
  it('restores the saved state, then takes the epoch with the later ones; a failing restore leaves them', async () => {
    const log = logOn(new MemoryContextStore());
    await log.record({ kind: 'fold', turn: 1, description: 'a' }, { v: 0 });
    await log.record({ kind: 'fold', turn: 2, description: 'b' }, { v: 1 });
    await expect(log.undo<{ v: number }>('e1', () => Promise.reject(new Error('store down')))).rejects.toThrow(
      'store down',
    );
    expect((await log.list()).map((epoch) => epoch.id)).toEqual(['e1', 'e2']);
    const restored: Array<{ v: number }> = [];
    const result = await log.undo<{ v: number }>('e1', (before) => void restored.push(before));
    expect(restored).toEqual([{ v: 0 }]);
    expect(result.undone.id).toBe('e1');
    expect(result.alsoUndone.map((epoch) => epoch.id)).toEqual(['e2']);
    expect(await log.list()).toEqual([]);
  });
});

describe('EpochLog#record under contention', () => {
  it('throws a StoreError instead of handing back an epoch it could not record', async () => {
    const store = new MemoryContextStore();
    // Every compare-and-set of the index is refused, as if other writers always came first.
    store.setIfVersion = async (key) => ({ ok: false, current: await store.getVersioned(key) });
    const log = logOn(store);
    await expect(log.record({ kind: 'fold', turn: 1, description: 'a' }, {})).rejects.toMatchObject({
      code: 'CTXKIT_STORE_ERROR',
      message: expect.stringContaining('cannot be undone'),
    });
    // Nothing it saved is left behind.
    expect(await store.list({ agentId: 'agent', sessionId: 's1', kind: 'state' })).toEqual([]);
  });
});
