import { canonicalJson } from '../extraction/merge-state';
import type { CompiledStateSchema } from '../schema/state-schema';
import type { EntityFieldChange, EntityStateVersion, PersistedEntityState, ReadPoint } from './entity-state';

/** Read points a state keeps at most: past it, every other one of the older half is dropped (the oldest stays). */
const MAX_READ_POINTS = 32;

/**
 * The read points after an extraction that ended at `point`: those before it, then it. Points at or
 * after it came from another history (the read point moved back over a rewritten one) and go. Over
 * {@link MAX_READ_POINTS}, the older half is thinned out, so the newest points stay dense and older
 * ones grow sparser, and the oldest one stays.
 */
export function withReadPoint(points: readonly ReadPoint[] | undefined, point: ReadPoint): ReadPoint[] {
  const kept = [...(points ?? []).filter((earlier) => earlier.index < point.index), { ...point }];
  if (kept.length <= MAX_READ_POINTS) return kept;
  const older = kept.length >> 1;
  return [...kept.slice(0, older).filter((_, position) => position % 2 === 0), ...kept.slice(older)];
}

/**
 * One extraction's result, kept apart from the record it was computed on, so that it can be applied
 * onto whatever record the store holds when it is written (another process may have written first).
 */
export interface EntityUpdate {
  /** Index into the caller's history of the newest message the extraction read. */
  sourceMessageIndex: number;
  /** Fingerprint of that message's text. */
  sourceFingerprint: string;
  /**
   * The fields the extraction changed, with their new values (`after: null`: cleared); empty when it failed or found
   * nothing new.
   */
  diff: EntityFieldChange[];
  /** When the extraction ran (ms since epoch). */
  timestamp: number;
  offline: boolean;
  extractor: string;
}

/** What applying an {@link EntityUpdate} onto a record gave. */
export type AppliedEntityUpdate =
  /** The record with the update: its changes (a new version when a value changed) and its extraction point. */
  | { outcome: 'applied'; record: PersistedEntityState; version: EntityStateVersion | null }
  /** The changes do not fit the record's state (the merged state fails the state schema). */
  | { outcome: 'invalid'; errors: string[] };

/**
 * Applies an update onto a record: each changed field takes the update's value (a field the update
 * did not change keeps the record's), the diff is taken again against the record's state, a version
 * is added when a value changed, and the record moves its extraction point to the update's source.
 * Neither input is modified. (Whether the record already read the update's source message is for the
 * caller to tell, with the caller's history.)
 */
export function applyEntityUpdate(
  record: Readonly<PersistedEntityState>,
  update: Readonly<EntityUpdate>,
  schema: CompiledStateSchema,
): AppliedEntityUpdate {
  const state = structuredClone(record.state);
  const diff: EntityFieldChange[] = [];
  for (const change of update.diff) {
    const before = record.state[change.field];
    if (canonicalJson(before ?? null) === canonicalJson(change.after ?? null)) continue;
    if (change.after === null || change.after === undefined) delete state[change.field];
    else state[change.field] = structuredClone(change.after);
    diff.push({
      field: change.field,
      before: before === undefined ? null : structuredClone(before),
      after: structuredClone(change.after ?? null),
    });
  }
  const errors = diff.length > 0 ? schema.validate(state) : [];
  if (errors.length > 0) return { outcome: 'invalid', errors };
  const version: EntityStateVersion | null =
    diff.length === 0
      ? null
      : {
          version: record.versions.length + 1,
          sourceMessageIndex: update.sourceMessageIndex,
          diff,
          timestamp: update.timestamp,
          offline: update.offline,
          extractor: update.extractor,
        };
  return {
    outcome: 'applied',
    record: {
      format: 1,
      state: version ? state : record.state,
      versions: version ? [...record.versions, version] : record.versions,
      processedThrough: update.sourceMessageIndex,
      processedFingerprint: update.sourceFingerprint,
      readPoints: withReadPoint(record.readPoints, {
        index: update.sourceMessageIndex,
        fingerprint: update.sourceFingerprint,
      }),
    },
    version,
  };
}
