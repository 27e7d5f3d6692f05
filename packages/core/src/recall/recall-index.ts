import type { ChatMessage } from '../contracts/chat-message';
import type { IRecallBackend, RecallEntry, RecallRecord, RecallScopeKey } from '../contracts/recall-backend';
import { SerialQueue } from '../concurrency/serial-queue';
import { groupAt } from '../messages/group-tool-calls';
import { contentDigest } from '../token-counting/content-digest';
import { LexicalRanker } from './lexical-ranker';
import { recallUnitText } from './recall-text';

/** What {@link RecallIndex} is built from. */
export interface RecallIndexOptions {
  backend: IRecallBackend;
  scope: RecallScopeKey;
  /** Longest recall text of one unit, in characters (a longer one keeps its head and tail). */
  maxUnitChars: number;
  /** The clock entries are dated by. */
  now(): number;
}

/** A vector kept for an entry. */
export interface EntryVector {
  model: string;
  vector: Float32Array;
  norm: number;
}

/**
 * One scope's recall index (a session's turns, or every session of a resource): the entries of its
 * log, ranked by words (BM25+ on stemmed terms) and, where vectors were stored, by meaning.
 *
 * Kept incrementally: a turn is indexed once, as one record appended to the log, and every reader
 * (another session, another process) reads only what was appended since its last read. After a
 * restart the index is rebuilt from the log alone: the entries carry their text and vectors, so no
 * history is read again and nothing is embedded again.
 */
export class RecallIndex {
  private cursor: string | undefined;
  private loaded = false;
  private readonly entries = new Map<string, RecallEntry>();
  /** Each session's live entries, ordered by position. */
  private readonly sessions = new Map<string, RecallEntry[]>();
  /** The message object each session's newest entry ended with: the same object is the same turn. */
  private readonly lastMessage = new Map<string, Readonly<ChatMessage>>();
  private readonly vectors = new Map<string, EntryVector>();
  /** Per session, where each entry's episode begins (recomputed when the session's entries change). */
  private readonly episodeStarts = new Map<string, { gapMs: number; length: number; last: RecallEntry | undefined; first: number[] }>();
  readonly lexical = new LexicalRanker();
  private readonly queue = new SerialQueue();

  constructor(private readonly options: RecallIndexOptions) {}

  get scope(): RecallScopeKey {
    return this.options.scope;
  }

  /** Live entries, in no particular order. */
  get size(): number {
    return this.entries.size;
  }

  entry(id: string): RecallEntry | undefined {
    return this.entries.get(id);
  }

  /** A session's live entries, ordered by position. */
  sessionEntries(sessionId: string): ReadonlyArray<RecallEntry> {
    return this.sessions.get(sessionId) ?? [];
  }

  /** The ids of the sessions with live entries. */
  sessionIds(): IterableIterator<string> {
    return this.sessions.keys();
  }

  /**
   * The episode of an entry: its session and the position where the run of that session's entries
   * with no gap longer than `gapMs` between neighbours begins (turns close in time share a topic).
   */
  episodeOf(id: string, gapMs: number): string {
    const entry = this.entries.get(id);
    if (entry === undefined) return '';
    let starts = this.episodeStarts.get(entry.sessionId);
    const list = this.sessions.get(entry.sessionId)!;
    if (starts === undefined || starts.gapMs !== gapMs || starts.length !== list.length || starts.last !== list[list.length - 1]) {
      const first = new Array<number>(list.length);
      for (let position = 0; position < list.length; position++) {
        first[position] = position > 0 && Math.abs(list[position]!.at - list[position - 1]!.at) <= gapMs ? first[position - 1]! : list[position]!.from;
      }
      starts = { gapMs, length: list.length, last: list[list.length - 1], first };
      this.episodeStarts.set(entry.sessionId, starts);
    }
    let low = 0;
    let high = list.length - 1;
    while (low < high) {
      const middle = (low + high) >> 1;
      if (list[middle]!.from < entry.from) low = middle + 1;
      else high = middle;
    }
    return `${entry.sessionId}\u0000${starts.first[low]}`;
  }

  vector(id: string): EntryVector | undefined {
    return this.vectors.get(id);
  }

  /** Entries without a vector of `model`, oldest first per session. */
  entriesWithoutVector(model: string, limit: number): RecallEntry[] {
    const out: RecallEntry[] = [];
    for (const entry of this.entries.values()) {
      if (this.vectors.get(entry.id)?.model === model) continue;
      out.push(entry);
      if (out.length >= limit) break;
    }
    return out;
  }

  /** Reads what was appended to the log since the last read (turns another session or process indexed). */
  refresh(): Promise<void> {
    return this.queue.run(() => this.readNew());
  }

  /**
   * Indexes the whole units of `history[0, upTo)` of `sessionId` that the index does not hold yet,
   * after reading what others appended. A history that no longer matches what was indexed (an edit,
   * an undo, a compaction) is indexed again from where it differs, after a reset record; a history
   * shorter than what is indexed but matching it (a late request) changes nothing.
   * @returns how many entries were appended
   */
  index(sessionId: string, history: ReadonlyArray<Readonly<ChatMessage>>, upTo: number): Promise<number> {
    return this.queue.run(async () => {
      await this.readNew();
      const list = this.sessions.get(sessionId) ?? [];
      const agreed = this.agreement(sessionId, list, history, upTo);
      const records: RecallRecord[] = [];
      const at = this.options.now();
      if (agreed < list.length) {
        const from = list[agreed]!.from;
        records.push({ type: 'reset', id: `${sessionId}#reset@${from}.${at.toString(36)}.${Math.random().toString(36).slice(2, 8)}`, sessionId, from, at });
      }
      let position = agreed > 0 ? list[agreed - 1]!.to : 0;
      const end = Math.min(upTo, history.length);
      while (position < end) {
        const group = groupAt(history, position);
        if (group.end > end) break;
        if (group.kind !== 'system') {
          const text = recallUnitText(history.slice(group.start, group.end), this.options.maxUnitChars);
          const fingerprint = contentDigest(text);
          records.push({ type: 'entry', id: `${sessionId}#${group.start}.${fingerprint}`, sessionId, from: group.start, to: group.end, at, text, fingerprint });
        }
        position = group.end;
      }
      if (records.length === 0) return 0;
      await this.options.backend.append(this.options.scope, records);
      await this.readNew();
      const last = this.sessions.get(sessionId)?.at(-1);
      if (last !== undefined && last.to <= history.length) this.lastMessage.set(sessionId, history[last.to - 1]!);
      return records.filter((record) => record.type === 'entry').length;
    });
  }

  /** Stores vectors of `model` for entries (appended to the log, so other readers get them too). */
  addVectors(model: string, vectors: Array<{ entryId: string; vector: number[] }>): Promise<void> {
    if (vectors.length === 0) return Promise.resolve();
    return this.queue.run(async () => {
      const id = `vectors@${this.options.now().toString(36)}.${Math.random().toString(36).slice(2, 10)}`;
      await this.options.backend.append(this.options.scope, [{ type: 'vectors', id, model, vectors }]);
      await this.readNew();
    });
  }

  /** Resolves once every read and write queued so far has settled. */
  idle(): Promise<void> {
    return this.queue.idle();
  }

  /**
   * How many of the session's entries (from the oldest) still match `history`: all of them when the
   * newest one does (the usual case: checked by message identity, else by its text).
   */
  private agreement(sessionId: string, list: ReadonlyArray<RecallEntry>, history: ReadonlyArray<Readonly<ChatMessage>>, upTo: number): number {
    if (list.length === 0) return 0;
    const last = list[list.length - 1]!;
    // A history shorter than what is indexed: a late request, unless the part both hold differs.
    if (last.to > Math.min(upTo, history.length)) {
      let kept = list.length;
      while (kept > 0 && list[kept - 1]!.to > history.length) kept--;
      if (kept === 0 || this.matches(list[kept - 1]!, history)) return list.length;
      return this.lastMatching(list, history, kept - 1);
    }
    if (this.lastMessage.get(sessionId) === history[last.to - 1] || this.matches(last, history)) {
      this.lastMessage.set(sessionId, history[last.to - 1]!);
      return list.length;
    }
    return this.lastMatching(list, history, list.length - 1);
  }

  /** The count of leading entries that match, searching back from `below` (exclusive of it). */
  private lastMatching(list: ReadonlyArray<RecallEntry>, history: ReadonlyArray<Readonly<ChatMessage>>, below: number): number {
    for (let index = below - 1; index >= 0; index--) if (this.matches(list[index]!, history)) return index + 1;
    return 0;
  }

  private matches(entry: RecallEntry, history: ReadonlyArray<Readonly<ChatMessage>>): boolean {
    if (entry.to > history.length) return false;
    return contentDigest(recallUnitText(history.slice(entry.from, entry.to), this.options.maxUnitChars)) === entry.fingerprint;
  }

  private async readNew(): Promise<void> {
    const { records, cursor } = await this.options.backend.read(this.options.scope, this.cursor);
    this.cursor = cursor;
    if (!this.loaded) {
      // A rebuild: every record applied, then the words indexed in one pass.
      this.loaded = true;
      for (const record of records) this.apply(record, false);
      this.lexical.addAll([...this.entries.values()]);
      return;
    }
    for (const record of records) this.apply(record, true);
  }

  private apply(record: RecallRecord, indexWords: boolean): void {
    if (record.type === 'entry') {
      if (this.entries.has(record.id)) return;
      this.entries.set(record.id, record);
      let list = this.sessions.get(record.sessionId);
      if (list === undefined) this.sessions.set(record.sessionId, (list = []));
      let at = list.length;
      while (at > 0 && list[at - 1]!.from > record.from) at--;
      if (at > 0 && list[at - 1]!.from === record.from) {
        // Another entry for the same position without a reset in between (two writers that disagree): the newer stands.
        this.drop(list[at - 1]!, indexWords);
        list.splice(at - 1, 1);
        at--;
      }
      list.splice(at, 0, record);
      if (indexWords) this.lexical.add(record);
      if (record.vector !== undefined && record.embeddingModel !== undefined) this.setVector(record.id, record.embeddingModel, record.vector);
    } else if (record.type === 'reset') {
      const list = this.sessions.get(record.sessionId);
      if (list === undefined) return;
      while (list.length > 0 && list[list.length - 1]!.from >= record.from) this.drop(list.pop()!, indexWords);
      this.lastMessage.delete(record.sessionId);
    } else if (record.type === 'vectors') {
      for (const { entryId, vector } of record.vectors) if (this.entries.has(entryId)) this.setVector(entryId, record.model, vector);
    }
  }

  private drop(entry: RecallEntry, indexed: boolean): void {
    this.entries.delete(entry.id);
    this.vectors.delete(entry.id);
    if (indexed) this.lexical.remove(entry.id);
  }

  private setVector(id: string, model: string, values: ReadonlyArray<number>): void {
    const vector = Float32Array.from(values);
    let sum = 0;
    for (const value of vector) sum += value * value;
    this.vectors.set(id, { model, vector, norm: Math.sqrt(sum) });
  }
}
