import { randomUUID } from 'node:crypto';

import { SerialQueue } from '../concurrency/serial-queue';
import type { IContextStore, StoreKey } from '../contracts/context-store';
import type { ReductionEpoch } from '../contracts/reduction-epoch';
import { EpochNotFoundError } from '../errors/epoch-not-found-error';
import { StoreError } from '../errors/store-error';
import { formatStoreKey } from '../stores/store-key';
import { readVersioned, writeIfVersion } from '../stores/versioned-store-access';

/** Epochs a session keeps by default; older ones (and what they saved) are forgotten. */
export const DEFAULT_MAX_EPOCHS = 50;

/** Compare-and-set attempts of one change of the log before it gives up. */
const MAX_ATTEMPTS = 8;

/** What {@link EpochLog} needs. */
export interface EpochLogOptions {
  store: IContextStore;
  agentId: string;
  sessionId: string;
  now(): number;
  /** Epochs kept; recording one more forgets the oldest and what it saved. @default 50 */
  maxEpochs?: number;
}

/** What {@link EpochLog.record} is told about a reduction (its id and time are the log's). */
export type EpochDescription = Omit<ReductionEpoch, 'id' | 'at'>;

/** What {@link EpochLog.take} hands back: the epoch, the later ones, and the state saved before the epoch. */
export interface TakenEpoch<TState> {
  undone: ReductionEpoch;
  /** Later epochs, newest first: the state they saved was built on the undone one. */
  alsoUndone: ReductionEpoch[];
  /** The state saved when the epoch was recorded (what it was before the reduction). */
  before: TState;
}

/** An epoch as the index keeps it: with the store name of the state saved before it. */
interface IndexedEpoch extends ReductionEpoch {
  /** Unique per write, so that two writers racing for one id never overwrite each other's saved state. */
  savedAs: string;
}

interface EpochIndex {
  format: 1;
  /** Number of the next epoch id (`e<next>`). */
  next: number;
  epochs: IndexedEpoch[];
}

/**
 * A session's undoable reductions, kept in the store: an index (kind `state`, name `epochs`) and, per
 * epoch, the state saved before it (kind `state`, name `epoch:<id>.<nonce>`). Several instances and processes
 * serving one session share it: the index is written with compare-and-set where the store offers it.
 * A strategy records an epoch with the state it is about to replace, and on `undo(id)` takes it back
 * (with every later epoch) and restores that state. See docs/14-controlling-what-survives.md.
 */
export class EpochLog {
  private readonly io = new SerialQueue();
  private readonly maxEpochs: number;

  constructor(private readonly options: EpochLogOptions) {
    this.maxEpochs = Math.max(1, options.maxEpochs ?? DEFAULT_MAX_EPOCHS);
  }

  /**
   * Records a reduction with the state it replaced (any JSON value).
   * @returns the epoch, with its id
   * @throws StoreError when the store fails, or when other writers took the next id 8 times in a row
   */
  record(description: EpochDescription, before: unknown): Promise<ReductionEpoch> {
    return this.io.run(async () => {
      for (let attempt = 0; ; attempt++) {
        const read = await readVersioned<EpochIndex>(this.options.store, this.indexKey());
        const index = toEpochIndex(read?.value);
        const epoch: ReductionEpoch = { ...description, id: `e${index.next}`, at: this.options.now() };
        const savedAs = `epoch:${epoch.id}.${randomUUID().slice(0, 8)}`;
        await this.options.store.set(this.stateKey(savedAs), { before });
        const epochs = [...index.epochs, { ...epoch, savedAs }];
        const forgotten = epochs.splice(0, Math.max(0, epochs.length - this.maxEpochs));
        const written = await writeIfVersion(
          this.options.store,
          this.indexKey(),
          { format: 1, next: index.next + 1, epochs } satisfies EpochIndex,
          read?.version,
        );
        if (written.ok) {
          for (const old of forgotten) await this.options.store.delete(this.stateKey(old.savedAs));
          return epoch;
        }
        // Another writer took this id first: record under the next id.
        await this.options.store.delete(this.stateKey(savedAs));
        if (attempt + 1 >= MAX_ATTEMPTS) {
          throw new StoreError(
            this.options.store.name,
            'record epoch in',
            formatStoreKey(this.indexKey()),
            `${MAX_ATTEMPTS} other writers recorded epochs first; this reduction stands but cannot be undone`,
          );
        }
      }
    });
  }

  /** The recorded epochs, oldest first. */
  list(): Promise<ReductionEpoch[]> {
    return this.io.run(async () =>
      toEpochIndex((await readVersioned<EpochIndex>(this.options.store, this.indexKey()))?.value).epochs.map(
        publicEpoch,
      ),
    );
  }

  /**
   * What {@link take} would hand back for `epochId`, leaving the log as it is: restore the saved state
   * first and take the epoch after, so that a failure in between leaves the epoch there to undo again.
   * @throws EpochNotFoundError (`CTXKIT_EPOCH_NOT_FOUND`) when the log has no such epoch
   */
  peek<TState>(epochId: string): Promise<TakenEpoch<TState>> {
    return this.io.run(async () => {
      const index = toEpochIndex((await readVersioned<EpochIndex>(this.options.store, this.indexKey()))?.value);
      const at = index.epochs.findIndex((epoch) => epoch.id === epochId);
      const saved =
        at < 0 ? undefined : await this.options.store.get<{ before: TState }>(this.stateKey(index.epochs[at]!.savedAs));
      if (at < 0 || saved === undefined)
        throw new EpochNotFoundError(
          this.options.sessionId,
          epochId,
          index.epochs.map((epoch) => epoch.id),
        );
      const removed = index.epochs.slice(at);
      return {
        undone: publicEpoch(removed[0]!),
        alsoUndone: removed.slice(1).reverse().map(publicEpoch),
        before: saved.before,
      };
    });
  }

  /**
   * Undoes `epochId`: hands the state saved before it to `restore`, then (once `restore` has settled)
   * removes it and every later epoch from the log. A `restore` that throws leaves the log as it was,
   * so the epoch can be undone again.
   * @returns the epoch undone and the later ones undone with it (newest first)
   * @throws EpochNotFoundError (`CTXKIT_EPOCH_NOT_FOUND`) when the log has no such epoch
   * @throws what `restore` throws
   */
  async undo<TState>(
    epochId: string,
    restore: (before: TState) => Promise<void> | void,
  ): Promise<Omit<TakenEpoch<TState>, 'before'>> {
    const { before } = await this.peek<TState>(epochId);
    await restore(before);
    const { undone, alsoUndone } = await this.take<TState>(epochId);
    return { undone, alsoUndone };
  }

  /**
   * Removes `epochId` and every later epoch from the log and returns the state saved before `epochId`.
   * @throws EpochNotFoundError (`CTXKIT_EPOCH_NOT_FOUND`) when the log has no such epoch (never recorded, forgotten or
   *   undone)
   */
  take<TState>(epochId: string): Promise<TakenEpoch<TState>> {
    return this.io.run(async () => {
      for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
        const read = await readVersioned<EpochIndex>(this.options.store, this.indexKey());
        const index = toEpochIndex(read?.value);
        const at = index.epochs.findIndex((epoch) => epoch.id === epochId);
        const saved =
          at < 0
            ? undefined
            : await this.options.store.get<{ before: TState }>(this.stateKey(index.epochs[at]!.savedAs));
        if (at < 0 || saved === undefined) {
          throw new EpochNotFoundError(
            this.options.sessionId,
            epochId,
            index.epochs.map((epoch) => epoch.id),
          );
        }
        const kept = index.epochs.slice(0, at);
        const removed = index.epochs.slice(at);
        const written = await writeIfVersion(
          this.options.store,
          this.indexKey(),
          { format: 1, next: index.next, epochs: kept } satisfies EpochIndex,
          read?.version,
        );
        if (!written.ok) continue;
        for (const epoch of removed) await this.options.store.delete(this.stateKey(epoch.savedAs));
        return {
          undone: publicEpoch(removed[0]!),
          alsoUndone: removed.slice(1).reverse().map(publicEpoch),
          before: saved.before,
        };
      }
      throw new EpochNotFoundError(this.options.sessionId, epochId, []);
    });
  }

  private indexKey(): StoreKey {
    return { agentId: this.options.agentId, sessionId: this.options.sessionId, kind: 'state', name: 'epochs' };
  }

  private stateKey(name: string): StoreKey {
    return { agentId: this.options.agentId, sessionId: this.options.sessionId, kind: 'state', name };
  }
}

function toEpochIndex(value: unknown): EpochIndex {
  const index = value as Partial<EpochIndex> | undefined;
  if (index?.format !== 1 || !Array.isArray(index.epochs) || !Number.isInteger(index.next))
    return { format: 1, next: 1, epochs: [] };
  return {
    format: 1,
    next: index.next!,
    epochs: index.epochs.filter((epoch) => typeof epoch?.id === 'string' && typeof epoch.savedAs === 'string'),
  };
}

function publicEpoch({ savedAs: _savedAs, ...epoch }: IndexedEpoch): ReductionEpoch {
  return epoch;
}
