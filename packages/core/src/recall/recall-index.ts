import { SerialQueue } from '../concurrency/serial-queue';
import type { ChatMessage } from '../contracts/chat-message';
import type { IRecallBackend, RecallEntry, RecallRecord, RecallScopeKey } from '../contracts/recall-backend';
import { groupAt } from '../messages/group-tool-calls';
import { contentDigest } from '../token-counting/content-digest';
import { EntryEnds } from './entry-ends';
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

/** Counts an entry's line for a recall block, by an encoding (stored with the entry, counted once). */
export type RecallLineCounter = { encoding: string; count(line: string): number };

/**
 * An entry as the index keeps it: its text is dropped once a history the index holds is known to
 * have the same unit (read it with {@link RecallIndex.textOf}).
 */
export type IndexedEntry = Omit<RecallEntry, 'text'> & { text?: string };

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
 *
 * An entry's text is kept only until a history passed to {@link index} is found to hold its unit:
 * from then on it is read back from that history (the caller's own messages, which the index holds
 * anyway), so that a session's recall text is not kept twice. Entries of sessions this process has
 * not indexed (another process's, or before their first turn after a restart) keep their text.
 */
export class RecallIndex {
  private cursor: string | undefined;
  private loaded = false;
  private readonly entries = new Map<string, IndexedEntry>();
  /**
   * Live entries by slot: a small number each live entry gets, so that ranking works on arrays
   * rather than maps keyed by id (a slot is not reused; a dropped entry leaves a hole).
   */
  private readonly bySlot: Array<IndexedEntry | undefined> = [];
  private readonly slotOfId = new Map<string, number>();
  /** Each session's live entries, ordered by position, and their slots beside them. */
  private readonly sessions = new Map<string, IndexedEntry[]>();
  private readonly sessionSlotLists = new Map<string, number[]>();
  /** Per session, beside its entries: where each ends, and the message it ended with when last found. */
  private readonly ends = new Map<string, EntryEnds>();
  /**
   * The history each session was last checked against, unchanged since when the same array, length and last message.
   */
  private readonly checked = new Map<
    string,
    {
      history: ReadonlyArray<Readonly<ChatMessage>>;
      length: number;
      last: Readonly<ChatMessage> | undefined;
      agreed: number;
    }
  >();
  private readonly vectors = new Map<string, EntryVector>();
  /** Per session, the history its entries without a text are read back from (each checked against it). */
  private readonly sources = new Map<string, ReadonlyArray<Readonly<ChatMessage>>>();
  /** Per session, where each entry's episode begins (recomputed when the session's entries change). */
  private readonly episodeStarts = new Map<
    string,
    { gapMs: number; length: number; last: IndexedEntry | undefined; first: number[]; edits: number }
  >();
  /**
   * Per session, how many times its entries changed other than by an append (what the episode runs are recomputed for).
   */
  private readonly edits = new Map<string, number>();
  /**
   * The entries' words, ranked in memory; undefined when the backend searches them itself (a
   * database with full-text search): then no process holds a second index of them.
   */
  readonly lexical: LexicalRanker | undefined;
  private readonly queue = new SerialQueue();
  /** The clock's reading at the last {@link index} call (a compose reads it rather than the clock again). */
  private lastIndexedAt: number | undefined;

  constructor(private readonly options: RecallIndexOptions) {
    this.lexical = options.backend.search ? undefined : new LexicalRanker();
  }

  /**
   * The backend's own lexical search of `query` (best first, at most `limit`), or undefined when it
   * has none (the index ranks the words in memory).
   */
  async searchInBackend(query: string, limit: number): Promise<Map<string, number> | undefined> {
    const search = this.options.backend.search;
    if (search === undefined || query.trim().length === 0) return undefined;
    const hits = await search.call(this.options.backend, this.options.scope, query, limit);
    return new Map(hits.map((hit) => [hit.id, hit.score]));
  }

  /** True once the log has been read (by {@link refresh} or {@link index}). */
  get read(): boolean {
    return this.loaded;
  }

  /** The clock's reading at the last {@link index} call (undefined before one): the time of the newest check. */
  get checkedAt(): number | undefined {
    return this.lastIndexedAt;
  }

  get scope(): RecallScopeKey {
    return this.options.scope;
  }

  /** Live entries, in no particular order. */
  get size(): number {
    return this.entries.size;
  }

  entry(id: string): IndexedEntry | undefined {
    return this.entries.get(id);
  }

  /**
   * An entry's recall text: kept with it, or read back from the history of its session that was
   * checked against it (the same text, made the same way). Empty when that history changed in place
   * since (its unit's end message is another object, and the text is not the one indexed): such an
   * entry is indexed again, or dropped, on the session's next turn, and is not recalled before.
   */
  textOf(entry: IndexedEntry): string {
    if (entry.text !== undefined) return entry.text;
    const source = this.sources.get(entry.sessionId);
    if (source === undefined || entry.to > source.length) return '';
    const text = recallUnitText(source.slice(entry.from, entry.to), this.options.maxUnitChars);
    const position = positionOf(this.sessions.get(entry.sessionId) ?? [], entry.from);
    if (position >= 0 && this.ends.get(entry.sessionId)?.messageAt(position) === source[entry.to - 1]) return text;
    return contentDigest(text) === entry.fingerprint ? text : '';
  }

  /** One more than the highest slot given: the length of arrays indexed by slot. */
  get capacity(): number {
    return this.bySlot.length;
  }

  /** The live entry at `slot`. */
  entryAt(slot: number): IndexedEntry | undefined {
    return this.bySlot[slot];
  }

  /** The slot of a live entry. */
  slotOf(id: string): number | undefined {
    return this.slotOfId.get(id);
  }

  /** A session's slots, beside {@link sessionEntries} (same positions). */
  sessionSlots(sessionId: string): ReadonlyArray<number> {
    return this.sessionSlotLists.get(sessionId) ?? [];
  }

  /** A session's live entries, ordered by position. */
  sessionEntries(sessionId: string): ReadonlyArray<IndexedEntry> {
    return this.sessions.get(sessionId) ?? [];
  }

  /** The ids of the sessions with live entries. */
  sessionIds(): IterableIterator<string> {
    return this.sessions.keys();
  }

  /**
   * Where the episode of the entry at `position` of its session's list begins (the `from` of its
   * first entry): a run of that session's entries with no gap longer than `gapMs` between neighbours
   * (turns close in time share a topic). Computed once per change of the session's entries.
   */
  episodeStart(sessionId: string, position: number, gapMs: number): number {
    return this.episodeStartsOf(sessionId, gapMs)[position] ?? -1;
  }

  /** {@link episodeStart} of every entry of a session's list, by position. */
  episodeStartsOf(sessionId: string, gapMs: number): ReadonlyArray<number> {
    const list = this.sessions.get(sessionId) ?? [];
    let starts = this.episodeStarts.get(sessionId);
    const edits = this.edits.get(sessionId) ?? 0;
    if (
      starts === undefined ||
      starts.gapMs !== gapMs ||
      starts.edits !== edits ||
      starts.length > list.length ||
      (starts.length > 0 && list[starts.length - 1] !== starts.last)
    ) {
      starts = { gapMs, length: 0, last: undefined, first: [], edits };
      this.episodeStarts.set(sessionId, starts);
    }
    // Entries appended since the last call extend the runs; anything else recomputes them.
    const first = starts.first;
    for (let at = starts.length; at < list.length; at++) {
      first[at] = at > 0 && Math.abs(list[at]!.at - list[at - 1]!.at) <= gapMs ? first[at - 1]! : list[at]!.from;
    }
    starts.length = list.length;
    starts.last = list[list.length - 1];
    return first;
  }

  vector(id: string): EntryVector | undefined {
    return this.vectors.get(id);
  }

  /** Entries without a vector of `model`, oldest first per session. */
  entriesWithoutVector(model: string, limit: number): IndexedEntry[] {
    const out: IndexedEntry[] = [];
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
  index(
    sessionId: string,
    history: ReadonlyArray<Readonly<ChatMessage>>,
    upTo: number,
    lines?: RecallLineCounter,
  ): Promise<number> {
    return this.queue.run(() => this.indexNow(sessionId, history, upTo, lines));
  }

  /**
   * {@link index}, its turn in the queue come. A method, not a closure made at each call: a closure's
   * optimized code goes with the last closure alive, at the next major collection.
   */
  private async indexNow(
    sessionId: string,
    history: ReadonlyArray<Readonly<ChatMessage>>,
    upTo: number,
    lines: RecallLineCounter | undefined,
  ): Promise<number> {
    await this.readNew();
    const list = this.sessions.get(sessionId) ?? [];
    const agreed = this.agreement(sessionId, list, history);
    // A late, shorter history was not checked against the entries past its end.
    const checkedAll = list.length === 0 || list[list.length - 1]!.to <= history.length;
    const records: RecallRecord[] = [];
    const at = this.options.now();
    this.lastIndexedAt = at;
    if (agreed < list.length) {
      const from = list[agreed]!.from;
      records.push({
        type: 'reset',
        id: `${sessionId}#reset@${from}.${at.toString(36)}.${Math.random().toString(36).slice(2, 8)}`,
        sessionId,
        from,
        at,
      });
    }
    let position = agreed > 0 ? list[agreed - 1]!.to : 0;
    const end = Math.min(upTo, history.length);
    while (position < end) {
      const group = groupAt(history, position);
      if (group.end > end) break;
      if (group.kind !== 'system') {
        const messages = history.slice(group.start, group.end);
        const text = recallUnitText(messages, this.options.maxUnitChars);
        const fingerprint = contentDigest(text);
        const tokens = lines ? { encoding: lines.encoding, count: lines.count(text) } : undefined;
        records.push({
          type: 'entry',
          id: `${sessionId}#${group.start}.${fingerprint}`,
          sessionId,
          from: group.start,
          to: group.end,
          at,
          text,
          fingerprint,
          ...(tokens ? { tokens } : {}),
        });
      }
      position = group.end;
    }
    if (records.length === 0) {
      if (checkedAll) this.releaseTexts(sessionId, history);
      return 0;
    }
    await this.options.backend.append(this.options.scope, records);
    await this.readNew();
    const indexed = this.sessions.get(sessionId) ?? [];
    const ends = this.endsOf(sessionId);
    for (const record of records) {
      if (record.type !== 'entry') continue;
      const place = positionOf(indexed, record.from);
      if (place >= 0 && indexed[place]!.id === record.id) ends.found(place, history[record.to - 1]!);
    }
    if (checkedAll) this.releaseTexts(sessionId, history);
    return records.filter((record) => record.type === 'entry').length;
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
   * Makes `history` the session's source of texts and drops the texts it holds (the newest entries
   * still with a text whose end message is the history's, found by {@link agreement} or indexed
   * from it). Only for a history {@link agreement} checked every entry against (not a late, shorter
   * one), so that every entry without a text is read back the same from it.
   */
  private releaseTexts(sessionId: string, history: ReadonlyArray<Readonly<ChatMessage>>): void {
    const list = this.sessions.get(sessionId);
    if (list === undefined || list.length === 0) return;
    const ends = this.endsOf(sessionId);
    this.sources.set(sessionId, history);
    for (let at = list.length - 1; at >= 0; at--) {
      const entry = list[at]!;
      if (entry.text === undefined) break;
      if (entry.to <= history.length && ends.messageAt(at) === history[entry.to - 1]) entry.text = undefined;
    }
  }

  /**
   * How many of the session's entries (from the oldest) still match `history`. Each entry is checked
   * by the identity of the message it ended with (a pointer comparison), and by its text only when
   * that object changed (a history rebuilt from JSON, an edited message): an edit anywhere is found,
   * at the cost of one comparison per entry. A history shorter than what is indexed but matching it
   * (a late request) agrees with every entry.
   */
  private agreement(
    sessionId: string,
    list: ReadonlyArray<IndexedEntry>,
    history: ReadonlyArray<Readonly<ChatMessage>>,
  ): number {
    const seen = this.checked.get(sessionId);
    if (
      seen !== undefined &&
      seen.history === history &&
      seen.length === history.length &&
      seen.last === history[history.length - 1] &&
      seen.agreed === list.length
    )
      return list.length;
    const ends = this.endsOf(sessionId);
    let agreed = 0;
    for (; ; agreed++) {
      agreed = ends.firstUnfound(history, agreed);
      if (agreed >= list.length || ends.positionAt(agreed) > history.length) break;
      if (!this.matches(list[agreed]!, history)) {
        this.checked.delete(sessionId);
        return agreed;
      }
      ends.found(agreed, history[ends.positionAt(agreed) - 1]!);
    }
    // Entries past the end of a shorter history: a late request, nothing to reset.
    if (agreed < list.length && list[agreed]!.to > history.length) agreed = list.length;
    this.checked.set(sessionId, { history, length: history.length, last: history[history.length - 1], agreed });
    return agreed;
  }

  /** The end messages beside a session's entries (created empty with the session). */
  private endsOf(sessionId: string): EntryEnds {
    let ends = this.ends.get(sessionId);
    if (ends === undefined) this.ends.set(sessionId, (ends = new EntryEnds()));
    return ends;
  }

  private matches(entry: IndexedEntry, history: ReadonlyArray<Readonly<ChatMessage>>): boolean {
    if (entry.to > history.length) return false;
    return (
      contentDigest(recallUnitText(history.slice(entry.from, entry.to), this.options.maxUnitChars)) ===
      entry.fingerprint
    );
  }

  private async readNew(): Promise<void> {
    const { records, cursor } = await this.options.backend.read(this.options.scope, this.cursor);
    this.cursor = cursor;
    if (!this.loaded) {
      // A rebuild: every record applied, then the words indexed in one pass.
      this.loaded = true;
      for (const record of records) this.apply(record, false);
      this.lexical?.addAll(
        [...this.entries.values()].map((entry) => ({
          slot: this.slotOfId.get(entry.id)!,
          entry: { text: this.textOf(entry) },
        })),
      );
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
      let slots = this.sessionSlotLists.get(record.sessionId);
      if (slots === undefined) this.sessionSlotLists.set(record.sessionId, (slots = []));
      const ends = this.endsOf(record.sessionId);
      const slot = this.bySlot.length;
      this.bySlot.push(record);
      this.slotOfId.set(record.id, slot);
      let at = list.length;
      while (at > 0 && list[at - 1]!.from > record.from) at--;
      if (at > 0 && list[at - 1]!.from === record.from) {
        // Another entry for the same position without a reset in between (two writers that disagree): the newer stands.
        this.drop(list[at - 1]!, indexWords);
        this.edits.set(record.sessionId, (this.edits.get(record.sessionId) ?? 0) + 1);
        list.splice(at - 1, 1);
        slots.splice(at - 1, 1);
        ends.remove(at - 1);
        at--;
      }
      if (at < list.length) this.edits.set(record.sessionId, (this.edits.get(record.sessionId) ?? 0) + 1);
      list.splice(at, 0, record);
      slots.splice(at, 0, slot);
      ends.insert(at, record.to);
      if (indexWords) this.lexical?.add(slot, record);
      if (record.vector !== undefined && record.embeddingModel !== undefined)
        this.setVector(record.id, record.embeddingModel, record.vector);
    } else if (record.type === 'reset') {
      const list = this.sessions.get(record.sessionId);
      if (list === undefined) return;
      const ends = this.endsOf(record.sessionId);
      const slots = this.sessionSlotLists.get(record.sessionId)!;
      this.edits.set(record.sessionId, (this.edits.get(record.sessionId) ?? 0) + 1);
      while (list.length > 0 && list[list.length - 1]!.from >= record.from) {
        this.drop(list.pop()!, indexWords);
        slots.pop();
        ends.remove(ends.length - 1);
      }
      this.checked.delete(record.sessionId);
    } else if (record.type === 'vectors') {
      for (const { entryId, vector } of record.vectors)
        if (this.entries.has(entryId)) this.setVector(entryId, record.model, vector);
    }
  }

  private drop(entry: IndexedEntry, indexed: boolean): void {
    const slot = this.slotOfId.get(entry.id);
    this.entries.delete(entry.id);
    this.vectors.delete(entry.id);
    this.slotOfId.delete(entry.id);
    if (slot !== undefined) {
      this.bySlot[slot] = undefined;
      if (indexed) this.lexical?.remove(slot);
    }
  }

  private setVector(id: string, model: string, values: ReadonlyArray<number>): void {
    const vector = Float32Array.from(values);
    let sum = 0;
    for (const value of vector) sum += value * value;
    this.vectors.set(id, { model, vector, norm: Math.sqrt(sum) });
  }
}

/** The position in `list` (ordered by `from`) of the entry starting at `from`, or -1. */
export function positionOf(list: ReadonlyArray<Pick<RecallEntry, 'from'>>, from: number): number {
  let low = 0;
  let high = list.length - 1;
  while (low <= high) {
    const middle = (low + high) >> 1;
    const at = list[middle]!.from;
    if (at === from) return middle;
    if (at < from) low = middle + 1;
    else high = middle - 1;
  }
  return -1;
}
