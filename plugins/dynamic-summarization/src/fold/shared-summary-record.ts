import { type IContextStore, type StoreKey, type VersionedValue } from '@ctxkit/core';
import { readVersioned, SerialQueue, UNVERSIONED, writeIfVersion } from '@ctxkit/core/strategy-kit';

import { emptySummaryRecord, sameSummary, type SummaryRecord, toSummaryRecord } from '../summary-state';

/** Compare-and-set attempts of one update before it gives up (each refused one re-reads the record). */
const MAX_UPDATE_ATTEMPTS = 8;

/**
 * A session's {@link SummaryRecord} as one instance shares it through the store: read fresh whenever
 * asked, written only with compare-and-set against the version last read, so that a write computed
 * from an outdated record is refused and computed again from the current one. The instance's reads and
 * writes run one at a time, in call order.
 *
 * On a store without compare-and-set the writes fall back to `set` (the last writer wins), as
 * docs/09-stores.md says.
 */
export class SharedSummaryRecord {
  private stored: SummaryRecord = emptySummaryRecord();
  /** Version of `stored` in the store; `undefined` while absent there. */
  private version: string | undefined;
  /** What the instance uses instead of `stored` until the next read or write (a dropped summary). */
  private override: SummaryRecord | undefined;
  private readonly io = new SerialQueue();

  constructor(
    private readonly store: IContextStore,
    private readonly key: StoreKey,
  ) {}

  /** The record as last read or written (or as overridden until then). */
  get current(): SummaryRecord {
    return this.override ?? this.stored;
  }

  /** Reads the record from the store. A summary that did not change keeps its object. */
  refresh(): Promise<void> {
    return this.io.run(async () => this.accept(await readVersioned(this.store, this.key)));
  }

  /** Uses `record` instead of the stored one until the next read or write (the write that stores it is on its way). */
  useUntilNextRead(record: SummaryRecord): void {
    this.override = record;
  }

  /**
   * Writes `change(record)`, computed from the record as last read, if the store still holds that
   * record; when another writer came first, reads what it wrote and computes `change` again, up to
   * 8 times. `change` returns `undefined` to write nothing (the work it stands for is outdated).
   * @returns the record written, or `undefined` when `change` wrote nothing or every attempt was refused
   * @throws what the store throws
   */
  update(change: (record: SummaryRecord) => SummaryRecord | undefined): Promise<SummaryRecord | undefined> {
    return this.io.run(async () => {
      for (let attempt = 0; attempt < MAX_UPDATE_ATTEMPTS; attempt++) {
        const next = change(this.stored);
        if (next === undefined) return undefined;
        const result = await writeIfVersion(this.store, this.key, next, this.version);
        if (result.ok) {
          this.stored = next;
          this.version = result.version;
          this.override = undefined;
          return next;
        }
        this.accept(result.current);
      }
      return undefined;
    });
  }

  /** Resolves once the reads and writes asked for so far have settled. */
  idle(): Promise<void> {
    return this.io.idle();
  }

  private accept(read: VersionedValue | undefined): void {
    this.override = undefined;
    if (read !== undefined && read.version !== UNVERSIONED && read.version === this.version) return;
    const record = toSummaryRecord(read?.value);
    // Callers cache what they derive from the summary by its identity: keep it when it is the same one.
    if (record.summary !== null && sameSummary(record.summary, this.stored.summary))
      record.summary = this.stored.summary;
    this.stored = record;
    this.version = read?.version;
  }
}
