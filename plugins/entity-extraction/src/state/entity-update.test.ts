import fc from 'fast-check';

import { compileStateSchema } from '../schema/state-schema';
import type { EntityFieldChange, EntityState, PersistedEntityState } from './entity-state';
import { applyEntityUpdate, type EntityUpdate, withReadPoint } from './entity-update';
import { emptyEntityState } from './shared-entity-state';

const FIELDS = ['origin', 'destination', 'date', 'seats', 'note'] as const;
const schema = compileStateSchema(
  {
    type: 'object',
    properties: {
      origin: { type: 'string' },
      destination: { type: 'string' },
      date: { type: 'string' },
      seats: { type: 'integer', minimum: 1 },
      note: { type: ['string', 'null'] },
    },
  },
  'test',
);

function update(source: number, changes: Record<string, unknown>, base: EntityState = {}): EntityUpdate {
  const diff: EntityFieldChange[] = Object.entries(changes).map(([field, after]) => ({
    field,
    before: base[field] ?? null,
    after,
  }));
  return {
    sourceMessageIndex: source,
    sourceFingerprint: `fp-${source}`,
    diff,
    timestamp: source,
    offline: true,
    extractor: 'offline-extractor',
  };
}

function applied(record: PersistedEntityState, next: EntityUpdate): PersistedEntityState {
  const result = applyEntityUpdate(record, next, schema);
  if (result.outcome !== 'applied') throw new Error(result.errors.join('; '));
  return result.record;
}

describe('applyEntityUpdate', () => {
  it(
    'applies the changed fields, adds a version with the diff taken against the record, and moves the extraction ' +
      'point',
    () => {
      const record = applied(emptyEntityState(), update(0, { destination: 'Seattle', origin: 'Boston' }));
      expect(record).toMatchObject({
        state: { destination: 'Seattle', origin: 'Boston' },
        processedThrough: 0,
        processedFingerprint: 'fp-0',
      });
      // Computed on the empty state, applied onto the record another writer left.
      const result = applyEntityUpdate(
        record,
        update(2, { destination: 'Paris', date: '2024-05-20', note: null }),
        schema,
      );
      expect(result).toMatchObject({ outcome: 'applied', version: { version: 2, sourceMessageIndex: 2 } });
      if (result.outcome !== 'applied') return;
      expect(result.record.state).toEqual({ destination: 'Paris', origin: 'Boston', date: '2024-05-20' });
      expect(result.version!.diff).toEqual([
        { field: 'destination', before: 'Seattle', after: 'Paris' },
        { field: 'date', before: null, after: '2024-05-20' },
      ]);
      expect(record.state).toEqual({ destination: 'Seattle', origin: 'Boston' });
    },
  );

  it('adds no version when every value is already there, but still moves the extraction point', () => {
    const record = applied(emptyEntityState(), update(0, { destination: 'Seattle' }));
    const result = applyEntityUpdate(record, update(2, { destination: 'Seattle' }), schema);
    expect(result).toMatchObject({
      outcome: 'applied',
      version: null,
      record: { processedThrough: 2, versions: [{ version: 1 }] },
    });
  });

  it('refuses a merge the state schema rejects', () => {
    expect(applyEntityUpdate(emptyEntityState(), update(0, { seats: 0 }), schema)).toMatchObject({
      outcome: 'invalid',
      errors: [expect.stringContaining('seats')],
    });
  });

  it('loses no field of either of two concurrent updates: the later source wins where both changed a field', () => {
    const value = fc.oneof(fc.constantFrom('Seattle', 'Paris', 'Tokyo', '2024-05-20'), fc.constant(null));
    const changes = fc.dictionary(fc.constantFrom('origin', 'destination', 'date', 'note'), value, { maxKeys: 4 });
    fc.assert(
      fc.property(changes, changes, fc.boolean(), (first, second, laterCommitsFirst) => {
        // Both were extracted from the same record; the earlier one read message 1, the later one messages 1 to 3.
        const earlier = update(1, first);
        const later = update(3, { ...first, ...second });
        const base = emptyEntityState();
        const final = laterCommitsFirst
          ? applied(base, later) // the earlier one is then covered: the later one read its message
          : applied(applied(base, earlier), later);
        const expected: EntityState = {};
        for (const [field, after] of Object.entries({ ...first, ...second }))
          if (after !== null) expected[field] = after;
        expect(final.state).toEqual(expected);
        expect(final.processedThrough).toBe(3);
        let replayed: EntityState = {};
        for (const version of final.versions)
          for (const change of version.diff)
            replayed =
              change.after === null
                ? Object.fromEntries(Object.entries(replayed).filter(([field]) => field !== change.field))
                : { ...replayed, [change.field]: change.after };
        expect(replayed).toEqual(final.state);
        expect(FIELDS).toEqual(expect.arrayContaining(Object.keys(final.state)));
      }),
      { numRuns: 200, seed: 20250101 },
    );
  });

  it(
    'keeps the read points of a long conversation bounded: the newest all, older ones sparser, the first ' + 'always',
    () => {
      let points = withReadPoint(undefined, { index: 0, fingerprint: 'fp-0' });
      for (let index = 2; index <= 2000; index += 2)
        points = withReadPoint(points, { index, fingerprint: `fp-${index}` });
      expect(points.length).toBeLessThanOrEqual(32);
      expect(points[0]).toEqual({ index: 0, fingerprint: 'fp-0' });
      expect(points.slice(-16).map((point) => point.index)).toEqual(
        Array.from({ length: 16 }, (_, n) => 2000 - 2 * (15 - n)),
      );
      expect(points.map((point) => point.index)).toEqual([...points.map((point) => point.index)].sort((a, b) => a - b));
      // A read point moved back (a rewritten history) drops the points at or after it.
      expect(
        withReadPoint(points, { index: 1000, fingerprint: 'other' }).filter((point) => point.index >= 1000),
      ).toEqual([{ index: 1000, fingerprint: 'other' }]);
    },
  );
});
