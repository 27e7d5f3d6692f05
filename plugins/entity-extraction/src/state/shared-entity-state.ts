import { type IContextStore, StoreError, type StoreKey, type VersionedValue } from '@ctxkit/core';
import { formatStoreKey, readVersioned, UNVERSIONED, writeIfVersion } from '@ctxkit/core/strategy-kit';

import type { CompiledStateSchema } from '../schema/state-schema';
import type { EntityStateVersion, PersistedEntityState } from './entity-state';
import { applyEntityUpdate, type EntityUpdate } from './entity-update';

/** Compare-and-set attempts of one write before the updates wait for the next call. */
const MAX_WRITE_ATTEMPTS = 8;

/** An update not written yet, with how to tell that a record already holds what it read. */
interface PendingUpdate {
  update: EntityUpdate;
  /** True when the record has already read the update's source message (another writer extracted it). */
  covers: (record: Readonly<PersistedEntityState>) => boolean;
}

/** What became of an update once written (or kept in memory when the store failed). */
export type EntityUpdateResult =
  /** Applied: `version` is the version it added (`null` when no value changed). */
  | { outcome: 'applied'; version: EntityStateVersion | null }
  /** Another writer had already extracted its source message: that writer's state stands. */
  | { outcome: 'covered' }
  /** Its changes do not fit the state another writer left (the state schema refuses the merge). */
  | { outcome: 'invalid'; errors: string[] };

/** Options of {@link SharedEntityState}. */
export interface SharedEntityStateOptions {
  store: IContextStore;
  key: StoreKey;
  schema: CompiledStateSchema;
  /** Reports a store failure or a stored state that does not match the schema. */
  warn: (message: string, error?: unknown) => void;
  /**
   * Told of every write of updates the store accepted, with the record it replaced, before the call
   * that wrote returns (so that the state's change can be recorded as an epoch). Must not throw.
   */
  written?: (replaced: PersistedEntityState, written: PersistedEntityState) => Promise<void>;
}

/** The state of a session before its first update. */
export function emptyEntityState(): PersistedEntityState {
  return { format: 1, state: {}, versions: [], processedThrough: -1, processedFingerprint: null };
}

/**
 * A session's entity state as one instance shares it through the store: read afresh on every call,
 * and written with compare-and-set against the version read. An update is kept apart from the record
 * it was computed on ({@link EntityUpdate}); when another writer came first, it is applied again onto
 * that writer's record (its changed fields over theirs), or dropped when that writer already read its
 * source message, so no update is lost and none is applied twice. When the store fails, updates stay
 * in memory (the state this instance shows includes them) and are written with the next call. Calls
 * must not overlap (the strategy serialises them).
 *
 * On a store without compare-and-set the writes fall back to `set` (the last writer wins).
 */
export class SharedEntityState {
  private stored: PersistedEntityState = emptyEntityState();
  /** Version of `stored` in the store; `undefined` while absent there. */
  private version: string | undefined;
  private pending: PendingUpdate[] = [];
  /** `stored` with the pending updates applied, while a write failed. */
  private view: PersistedEntityState | undefined;

  constructor(private readonly options: SharedEntityStateOptions) {}

  /** The state as last read, with the updates not written yet. */
  get current(): PersistedEntityState {
    return this.view ?? this.stored;
  }

  /**
   * Reads the state from the store and writes the updates a failed write left. A store that fails to
   * read leaves the state read last in use (with a warning).
   */
  async read(): Promise<PersistedEntityState> {
    try {
      this.accept(await readVersioned(this.options.store, this.options.key));
    } catch (error) {
      this.options.warn(
        `the stored entity state could not be read; using the one read last: ${messageOf(error)}`,
        error,
      );
      return this.current;
    }
    if (this.pending.length > 0) await this.write();
    return this.current;
  }

  /**
   * Reads the state from the store, as {@link read} does, without writing anything: updates a failed
   * write left are applied in memory only (for a preview).
   */
  async peek(): Promise<PersistedEntityState> {
    try {
      this.accept(await readVersioned(this.options.store, this.options.key));
    } catch {
      return this.current;
    }
    if (this.pending.length > 0) this.view = this.applyPending(this.stored).record;
    return this.current;
  }

  /**
   * Writes `change(record)` onto the record the store holds, with compare-and-set (computed again from
   * what another writer left when refused), as a state of its own: updates a failed write left are
   * dropped (they were computed on the state being replaced), and no `written` is told.
   * @throws StoreError (`CTXKIT_STORE_ERROR`) when the store fails or other writers keep replacing the record
   */
  async restore(change: (record: Readonly<PersistedEntityState>) => PersistedEntityState): Promise<void> {
    this.accept(await readVersioned(this.options.store, this.options.key));
    for (let attempt = 0; attempt < MAX_WRITE_ATTEMPTS; attempt++) {
      const record = change(this.stored);
      const written = await writeIfVersion(this.options.store, this.options.key, record, this.version);
      if (written.ok) {
        this.stored = record;
        this.version = written.version;
        this.pending = [];
        this.view = undefined;
        return;
      }
      this.accept(written.current);
    }
    throw new StoreError(
      this.options.store.name,
      'setIfVersion',
      formatStoreKey(this.options.key),
      `other writers kept replacing the entity state (${MAX_WRITE_ATTEMPTS} attempts); undo again`,
    );
  }

  /**
   * Applies `update` onto the state read last and writes it with compare-and-set; when another writer
   * came first, applies it onto what that writer stored instead (or drops it when `covers` says that
   * record already read its source message).
   */
  async apply(update: EntityUpdate, covers: PendingUpdate['covers']): Promise<EntityUpdateResult> {
    const pending: PendingUpdate = { update, covers };
    this.pending.push(pending);
    return (await this.write()).get(pending) ?? { outcome: 'covered' };
  }

  /** The pending updates applied onto `base`, and what became of each. */
  private applyPending(base: PersistedEntityState): {
    record: PersistedEntityState;
    results: Map<PendingUpdate, EntityUpdateResult>;
  } {
    const results = new Map<PendingUpdate, EntityUpdateResult>();
    let record = base;
    for (const pending of this.pending) {
      if (pending.covers(record)) {
        results.set(pending, { outcome: 'covered' });
        continue;
      }
      const applied = applyEntityUpdate(record, pending.update, this.options.schema);
      if (applied.outcome === 'invalid') {
        results.set(pending, applied);
        continue;
      }
      record = applied.record;
      results.set(pending, { outcome: 'applied', version: applied.version });
    }
    return { record, results };
  }

  /** Writes the pending updates onto the stored record; returns what became of each. */
  private async write(): Promise<Map<PendingUpdate, EntityUpdateResult>> {
    let results = new Map<PendingUpdate, EntityUpdateResult>();
    for (let attempt = 0; attempt < MAX_WRITE_ATTEMPTS; attempt++) {
      const applied = this.applyPending(this.stored);
      results = applied.results;
      const record = applied.record;
      if (record === this.stored) {
        this.pending = [];
        this.view = undefined;
        return results;
      }
      let written;
      try {
        written = await writeIfVersion(this.options.store, this.options.key, record, this.version);
      } catch (error) {
        this.options.warn(
          `the entity state could not be saved; it stays in memory for this instance and is written with the next ` +
            `call: ${messageOf(error)}`,
          error,
        );
        this.view = record;
        return results;
      }
      if (written.ok) {
        const replaced = this.stored;
        this.stored = record;
        this.version = written.version;
        this.pending = [];
        this.view = undefined;
        await this.options.written?.(replaced, record);
        return results;
      }
      this.accept(written.current);
    }
    this.options.warn(
      `the entity state kept changing under this instance's writes (${MAX_WRITE_ATTEMPTS} attempts); its update is ` +
        `written with the next call`,
    );
    return results;
  }

  private accept(read: VersionedValue | undefined): void {
    this.view = undefined;
    // The same version as last read: keep the record (and the objects derived from it).
    if (read !== undefined && read.version !== UNVERSIONED && read.version === this.version) return;
    this.version = read?.version;
    this.stored = this.validated(read?.value);
  }

  private validated(value: unknown): PersistedEntityState {
    if (value === undefined) return emptyEntityState();
    const stored = value as Partial<PersistedEntityState> | null;
    if (
      stored &&
      stored.format === 1 &&
      stored.state &&
      typeof stored.state === 'object' &&
      Array.isArray(stored.versions)
    ) {
      const problems = this.options.schema.validate(stored.state);
      if (problems.length === 0) return stored as PersistedEntityState;
      this.options.warn(
        `the stored entity state does not match the state schema (${problems.join('; ')}); starting empty`,
      );
    }
    return emptyEntityState();
  }
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
