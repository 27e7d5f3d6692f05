/**
 * Sizes of the slices a term's postings are written in, first to last (the last size repeats): a
 * term found once takes a few bytes, a frequent one grows by larger slices. Each slice ends with
 * the 4-byte position of the next one once it is full.
 */
const SLICE_SIZES = [6, 12, 24, 48, 96, 192, 384];
const LAST_LEVEL = SLICE_SIZES.length - 1;
/** Bytes at the end of a full slice that hold where the next one starts. */
const NEXT_SLICE_BYTES = 4;
/** States of a slot. */
const LIVE = 1;
const REMOVED = 2;

/** Postings of one term: the slots of the entries holding it and how often each does, the first `length` of each. */
export interface PostingList {
  slots: Int32Array;
  counts: Int32Array;
  length: number;
}

/**
 * An inverted index in a few flat byte and integer arrays: for each term, the entries that hold it
 * and how often, and for each entry the terms it holds.
 *
 * - A term's postings are variable-length numbers in a chain of slices of one byte pool (the layout
 *   of Lucene's byte slice pool): each posting is the difference from the term's previous entry and
 *   a flag for a count above 1, then the count (up to 255) when there is one. On the 10,000-message
 *   coding history a posting takes about 2 bytes where fixed fields took 13.
 * - An entry's terms are their ids as variable-length numbers, in first-seen order (what feedback
 *   terms and removal read).
 *
 * Entries are known by slot: a small number (below 2^29) given once. A removed entry's postings
 * stay in place, skipped by every walk, until they are half of all postings; then the pool is
 * rebuilt without them, every term's postings in the same order.
 */
export class TermPostings {
  /**
   * The term dictionary: each term's id by an open-addressing table of `id + 1` (0: empty) over the
   * terms' hashes, beside the terms by id. A map of 48,000 terms took 1.8 MB; the table takes 4 bytes
   * a place at most half full.
   */
  private termTable = new Int32Array(1024);
  private readonly termsById: string[] = [];
  /**
   * Per term: live entries holding it, the pool position of its first slice (-1: none), where its next byte goes, and
   * its newest posting's slot.
   */
  private entriesWithTerm = new Int32Array(256);
  private firstByte = new Int32Array(256).fill(-1);
  private endByte = new Int32Array(256);
  private lastSlot = new Int32Array(256);

  /**
   * Every term's slices. A slice not yet full holds zeros after its bytes and a nonzero marker (its level + 1) in its
   * last byte.
   */
  private pool = new Uint8Array(4096);
  private poolUsed = 0;
  private postings = 0;
  private deadPostings = 0;

  /**
   * Per slot: where its term ids begin in `forward`, how many (its distinct terms, also its length for BM25), and
   * whether it is live ({@link LIVE}, {@link REMOVED} while its postings are still in the pool, else 0).
   */
  private forward = new Uint8Array(4096);
  private forwardUsed = 0;
  private forwardStart = new Int32Array(256);
  private distinctTermsOf = new Int32Array(256);
  private liveSlots = new Uint8Array(256);
  private entries = 0;
  private meanLength = 0;

  /** @param minDeadPostings dead postings below which the pool is never rebuilt */
  constructor(private readonly minDeadPostings = 1024) {}

  /** How many entries are live. */
  get size(): number {
    return this.entries;
  }

  /** The mean length of a live entry, in distinct terms. */
  get averageLength(): number {
    return this.meanLength;
  }

  /** One past the highest slot ever given: every slot a walk visits is below it. */
  get slotLimit(): number {
    return this.liveSlots.length;
  }

  has(slot: number): boolean {
    return slot < this.liveSlots.length && this.liveSlots[slot] === LIVE;
  }

  /** How many live entries hold `term` (0 for a term never indexed). */
  frequency(term: string): number {
    const id = this.findTerm(term);
    return id < 0 ? 0 : this.entriesWithTerm[id]!;
  }

  /**
   * Adds an entry from how often it holds each term (in first-seen order); an entry already live at `slot` is replaced.
   */
  add(slot: number, terms: ReadonlyMap<string, number>): void {
    if (!(Number.isInteger(slot) && slot >= 0 && slot < 2 ** 29))
      throw new RangeError(`TermPostings: a slot is an integer in [0, 2^29) (got ${slot})`);
    if (this.has(slot)) this.remove(slot);
    // A slot given again while its old postings are still in the pool: they go first (they would read as the new
    // entry's).
    if (slot < this.liveSlots.length && this.liveSlots[slot] === REMOVED) this.vacuum();
    this.ensureSlot(slot);
    this.forwardStart[slot] = this.forwardUsed;
    this.distinctTermsOf[slot] = terms.size;
    this.liveSlots[slot] = LIVE;
    for (const [term, count] of terms) {
      const id = this.termId(term);
      this.writeForward(id);
      this.append(id, slot, count);
      this.entriesWithTerm[id] = this.entriesWithTerm[id]! + 1;
    }
    // The running mean, computed as a running mean (not a sum over a count) so that scores do not drift with the order
    // of adds and removes.
    this.meanLength = (this.meanLength * this.entries + terms.size) / (this.entries + 1);
    this.entries++;
  }

  /** Gives back the room the arrays grew ahead of need (after a rebuild that added many entries at once). */
  trim(): void {
    if (this.pool.length > this.poolUsed + 4096) this.pool = this.pool.slice(0, this.poolUsed + 4096);
    if (this.forward.length > this.forwardUsed + 4096) this.forward = this.forward.slice(0, this.forwardUsed + 4096);
  }

  /** Leaves the entry at `slot` out of every later walk. */
  remove(slot: number): void {
    if (!this.has(slot)) return;
    this.liveSlots[slot] = REMOVED;
    const distinct = this.distinctTermsOf[slot]!;
    this.forEachTermId(slot, (id) => {
      this.entriesWithTerm[id] = this.entriesWithTerm[id]! - 1;
    });
    this.meanLength = this.entries <= 1 ? 0 : (this.meanLength * this.entries - distinct) / (this.entries - 1);
    this.entries--;
    this.deadPostings += distinct;
    if (this.deadPostings > this.minDeadPostings && this.deadPostings * 2 > this.postings) this.vacuum();
  }

  /** The distinct terms of a live entry, in first-seen order. */
  termsOf(slot: number): string[] {
    if (!this.has(slot)) return [];
    const terms: string[] = [];
    this.forEachTermId(slot, (id) => terms.push(this.termsById[id]!));
    return terms;
  }

  /** The length of a live entry, in distinct terms (a turn that repeats a word is not longer for it). */
  lengthOfSlot(slot: number): number {
    return this.distinctTermsOf[slot] ?? 0;
  }

  /** The slot and count of every live entry holding `term`, oldest first. */
  livePostings(term: string): PostingList {
    const id = this.findTerm(term);
    return id < 0 ? { slots: new Int32Array(0), counts: new Int32Array(0), length: 0 } : this.decode(id);
  }

  /**
   * The live postings of term `id`, in the order they were added: one pass over its chain of slices,
   * a byte at a time (no callback per posting: a turn's search reads a few thousand).
   */
  private decode(id: number): PostingList {
    const slots = new Int32Array(this.entriesWithTerm[id]!);
    const counts = new Int32Array(slots.length);
    let length = 0;
    const { pool, liveSlots } = this;
    const end = this.endByte[id]!;
    let start = this.firstByte[id]!;
    if (start < 0) return { slots, counts, length };
    let level = 0;
    let size = SLICE_SIZES[0]!;
    let at = start;
    let slot = 0;
    // The posting being read: its variable-length number so far, and whether its count byte comes next.
    let value = 0;
    let shift = 0;
    let countNext = false;
    while (at !== end) {
      // Past a full slice's data, on to the next slice.
      if (at === start + size - NEXT_SLICE_BYTES && !(end > at && end < start + size)) {
        start = pool[at]! | (pool[at + 1]! << 8) | (pool[at + 2]! << 16) | (pool[at + 3]! << 24);
        level = Math.min(level + 1, LAST_LEVEL);
        size = SLICE_SIZES[level]!;
        at = start;
      }
      const byte = pool[at++]!;
      let count = 1;
      if (countNext) {
        count = byte;
        countNext = false;
      } else {
        value |= (byte & 0x7f) << shift;
        shift += 7;
        if (byte >= 0x80) continue;
        const moved = value >>> 1;
        slot += moved & 1 ? -((moved + 1) >>> 1) : moved >>> 1;
        countNext = (value & 1) === 1;
        value = 0;
        shift = 0;
        if (countNext) continue;
      }
      if (liveSlots[slot] === LIVE) {
        slots[length] = slot;
        counts[length] = count;
        length++;
      }
    }
    return { slots, counts, length };
  }

  /** The id of `term`, or -1 for a term never indexed. */
  private findTerm(term: string): number {
    const table = this.termTable;
    const mask = table.length - 1;
    for (let at = termHash(term) & mask; ; at = (at + 1) & mask) {
      const id = table[at]! - 1;
      if (id < 0 || this.termsById[id] === term) return id;
    }
  }

  /** The id of `term`, given the next one when it is new. */
  private termId(term: string): number {
    const table = this.termTable;
    const mask = table.length - 1;
    let at = termHash(term) & mask;
    for (; table[at] !== 0; at = (at + 1) & mask) if (this.termsById[table[at]! - 1] === term) return table[at]! - 1;
    const id = this.termsById.length;
    this.termsById.push(term);
    table[at] = id + 1;
    if (this.termsById.length * 2 > table.length) this.growTermTable();
    if (id >= this.entriesWithTerm.length) {
      const size = grownSize(this.entriesWithTerm.length, id + 1);
      this.entriesWithTerm = resized(this.entriesWithTerm, size);
      this.firstByte = resized(this.firstByte, size, -1);
      this.endByte = resized(this.endByte, size);
      this.lastSlot = resized(this.lastSlot, size);
    }
    return id;
  }

  /** Doubles the term table, every term placed again. */
  private growTermTable(): void {
    const table = new Int32Array(this.termTable.length * 2);
    const mask = table.length - 1;
    this.termsById.forEach((term, id) => {
      let at = termHash(term) & mask;
      while (table[at] !== 0) at = (at + 1) & mask;
      table[at] = id + 1;
    });
    this.termTable = table;
  }

  /**
   * Appends one posting to term `id`'s chain: the slot's difference from the newest (zigzag), a flag for a count above
   * 1, then the count.
   */
  private append(id: number, slot: number, count: number): void {
    const difference = slot - this.lastSlot[id]!;
    const moved = difference >= 0 ? difference * 2 : -difference * 2 - 1;
    let value = moved * 2 + (count > 1 ? 1 : 0);
    if (this.firstByte[id]! < 0) {
      const start = this.newSlice(0);
      this.firstByte[id] = start;
      this.endByte[id] = start;
    }
    while (value >= 0x80) {
      this.writeByte(id, (value & 0x7f) | 0x80);
      value >>>= 7;
    }
    this.writeByte(id, value);
    if (count > 1) this.writeByte(id, Math.min(count, 255));
    this.lastSlot[id] = slot;
    this.postings++;
  }

  private writeByte(id: number, byte: number): void {
    let at = this.endByte[id]!;
    const marker = this.pool[at]!;
    if (marker !== 0) {
      // The slice is full: its last data bytes move to a new slice, and its last 4 bytes say where that is.
      const next = this.newSlice(Math.min(marker, LAST_LEVEL));
      const pool = this.pool;
      const from = at - (NEXT_SLICE_BYTES - 1);
      pool[next] = pool[from]!;
      pool[next + 1] = pool[from + 1]!;
      pool[next + 2] = pool[from + 2]!;
      pool[from] = next & 0xff;
      pool[from + 1] = (next >>> 8) & 0xff;
      pool[from + 2] = (next >>> 16) & 0xff;
      pool[from + 3] = (next >>> 24) & 0xff;
      at = next + NEXT_SLICE_BYTES - 1;
    }
    this.pool[at] = byte;
    this.endByte[id] = at + 1;
  }

  /** A new slice of `level`: zeros, then its marker. */
  private newSlice(level: number): number {
    const size = SLICE_SIZES[level]!;
    const start = this.poolUsed;
    if (start + size > this.pool.length) this.pool = resized(this.pool, grownSize(this.pool.length, start + size));
    this.poolUsed += size;
    this.pool[start + size - 1] = level + 1;
    return start;
  }

  private writeForward(id: number): void {
    if (this.forwardUsed + 5 > this.forward.length)
      this.forward = resized(this.forward, grownSize(this.forward.length, this.forwardUsed + 5));
    let value = id;
    while (value >= 0x80) {
      this.forward[this.forwardUsed++] = (value & 0x7f) | 0x80;
      value >>>= 7;
    }
    this.forward[this.forwardUsed++] = value;
  }

  private forEachTermId(slot: number, visit: (id: number) => void): void {
    const forward = this.forward;
    let at = this.forwardStart[slot]!;
    for (let left = this.distinctTermsOf[slot]!; left > 0; left--) {
      let value = 0;
      let shift = 0;
      let byte: number;
      do {
        byte = forward[at++]!;
        value |= (byte & 0x7f) << shift;
        shift += 7;
      } while (byte >= 0x80);
      visit(value);
    }
  }

  private ensureSlot(slot: number): void {
    if (slot < this.liveSlots.length) return;
    const size = grownSize(this.liveSlots.length, slot + 1);
    this.forwardStart = resized(this.forwardStart, size);
    this.distinctTermsOf = resized(this.distinctTermsOf, size);
    this.liveSlots = resized(this.liveSlots, size);
  }

  /**
   * Rebuilds the pool and the entries' term lists with the live entries only, each term's postings in the same order.
   */
  private vacuum(): void {
    const terms = this.termsById.length;
    const kept: PostingList[] = [];
    for (let id = 0; id < terms; id++) kept.push(this.decode(id));
    const forward = this.forward;
    const starts = this.forwardStart;
    this.pool = new Uint8Array(Math.max(4096, this.poolUsed >>> 1));
    this.poolUsed = 0;
    this.postings = 0;
    this.deadPostings = 0;
    this.firstByte.fill(-1);
    this.endByte.fill(0);
    this.lastSlot.fill(0);
    for (let id = 0; id < terms; id++) {
      const { slots, counts, length } = kept[id]!;
      for (let at = 0; at < length; at++) this.append(id, slots[at]!, counts[at]!);
    }
    // The live entries' term lists, copied as they are.
    this.forward = new Uint8Array(Math.max(4096, this.forwardUsed >>> 1));
    this.forwardUsed = 0;
    this.forwardStart = new Int32Array(starts.length);
    for (let slot = 0; slot < this.liveSlots.length; slot++) {
      if (this.liveSlots[slot] === REMOVED) this.liveSlots[slot] = 0;
      if (this.liveSlots[slot] !== LIVE) continue;
      let end = starts[slot]!;
      for (let left = this.distinctTermsOf[slot]!; left > 0; left--) while (forward[end++]! >= 0x80);
      const length = end - starts[slot]!;
      if (this.forwardUsed + length > this.forward.length)
        this.forward = resized(this.forward, grownSize(this.forward.length, this.forwardUsed + length));
      this.forward.set(forward.subarray(starts[slot]!, end), this.forwardUsed);
      this.forwardStart[slot] = this.forwardUsed;
      this.forwardUsed += length;
    }
  }
}

/** FNV-1a over a term's UTF-16 code units, mixed so that neighbouring places are not filled by similar terms. */
function termHash(term: string): number {
  let hash = 0x811c9dc5;
  for (let index = 0; index < term.length; index++) hash = Math.imul(hash ^ term.charCodeAt(index), 0x01000193);
  hash ^= hash >>> 16;
  hash = Math.imul(hash, 0x85ebca6b);
  return (hash ^ (hash >>> 13)) >>> 0;
}

function grownSize(current: number, needed: number): number {
  let size = Math.max(current, 16);
  while (size < needed) size = Math.ceil(size * 1.25);
  return size;
}

function resized<T extends Int32Array | Uint8Array>(array: T, size: number, fill = 0): T {
  const next = new (array.constructor as new (length: number) => T)(size);
  next.set(array);
  if (fill !== 0) next.fill(fill, array.length);
  return next;
}
