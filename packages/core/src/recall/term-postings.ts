/**
 * An inverted index in a few flat typed arrays: for each term, the entries that hold it and how
 * often. A posting costs 13 bytes (its entry's slot, its term, the next posting of the same term,
 * and the count) and a term one dictionary entry, where an index of maps per term costs about ten
 * times as much (see the recall docs for the measure).
 *
 * Entries are known by slot: a small number given once and never reused. A removed entry's postings
 * stay in place, skipped by every walk, until they are half of all postings; then the arrays are
 * rebuilt without them.
 */
export class TermPostings {
  private readonly termIds = new Map<string, number>();
  private readonly termsById: string[] = [];
  /** Per term: live entries holding it, and its oldest and newest postings (-1: none). */
  private entriesWithTerm = new Int32Array(256);
  private oldestPosting = new Int32Array(256).fill(-1);
  private newestPosting = new Int32Array(256).fill(-1);

  /** Per posting: its entry, its term, the next (newer) posting of the same term, and the count. */
  private postingSlot = new Int32Array(1024);
  private postingTerm = new Int32Array(1024);
  private nextPosting = new Int32Array(1024);
  private postingCount = new Uint8Array(1024);
  private postings = 0;
  private deadPostings = 0;

  /** Per slot: where its postings begin, how many (its distinct terms, also its length for BM25), and whether it is live. */
  private firstPostingOf = new Int32Array(256);
  private distinctTermsOf = new Int32Array(256);
  private liveSlots = new Uint8Array(256);
  private entries = 0;
  private meanLength = 0;

  /** How many entries are live. */
  get size(): number {
    return this.entries;
  }

  /** The mean length of a live entry, in distinct terms. */
  get averageLength(): number {
    return this.meanLength;
  }

  has(slot: number): boolean {
    return slot < this.liveSlots.length && this.liveSlots[slot] === 1;
  }

  /** How many live entries hold `term` (0 for a term never indexed). */
  frequency(term: string): number {
    const id = this.termIds.get(term);
    return id === undefined ? 0 : this.entriesWithTerm[id]!;
  }

  /** Adds an entry from how often it holds each term (in first-seen order); an entry already live at `slot` is replaced. */
  add(slot: number, terms: ReadonlyMap<string, number>): void {
    if (this.has(slot)) this.remove(slot);
    const counts = new Map<number, number>();
    for (const [term, count] of terms) counts.set(this.termId(term), count);
    this.ensureSlot(slot);
    this.ensurePostings(this.postings + counts.size);
    this.firstPostingOf[slot] = this.postings;
    this.distinctTermsOf[slot] = counts.size;
    this.liveSlots[slot] = 1;
    for (const [term, count] of counts) {
      this.append(slot, term, count);
      this.entriesWithTerm[term] = this.entriesWithTerm[term]! + 1;
    }
    // The running mean, computed as a running mean (not a sum over a count) so that scores do not drift with the order of adds and removes.
    this.meanLength = (this.meanLength * this.entries + counts.size) / (this.entries + 1);
    this.entries++;
  }

  /** Gives back the room the arrays grew ahead of need (after a rebuild that added many entries at once). */
  trim(): void {
    const size = Math.max(1024, this.postings);
    if (size >= this.postingSlot.length) return;
    this.postingSlot = this.postingSlot.slice(0, size);
    this.postingTerm = this.postingTerm.slice(0, size);
    this.nextPosting = this.nextPosting.slice(0, size);
    this.postingCount = this.postingCount.slice(0, size);
  }

  /** Leaves the entry at `slot` out of every later walk. */
  remove(slot: number): void {
    if (!this.has(slot)) return;
    this.liveSlots[slot] = 0;
    const first = this.firstPostingOf[slot]!;
    const distinct = this.distinctTermsOf[slot]!;
    for (let at = first; at < first + distinct; at++) {
      const term = this.postingTerm[at]!;
      this.entriesWithTerm[term] = this.entriesWithTerm[term]! - 1;
    }
    this.meanLength = this.entries <= 1 ? 0 : (this.meanLength * this.entries - distinct) / (this.entries - 1);
    this.entries--;
    this.deadPostings += distinct;
    if (this.deadPostings > 1024 && this.deadPostings * 2 > this.postings) this.vacuum();
  }

  /** The distinct terms of a live entry. */
  termsOf(slot: number): string[] {
    if (!this.has(slot)) return [];
    const first = this.firstPostingOf[slot]!;
    const terms: string[] = [];
    for (let at = first; at < first + this.distinctTermsOf[slot]!; at++) terms.push(this.termsById[this.postingTerm[at]!]!);
    return terms;
  }

  /** The length of a live entry, in distinct terms (a turn that repeats a word is not longer for it). */
  lengthOfSlot(slot: number): number {
    return this.distinctTermsOf[slot] ?? 0;
  }

  /** Calls `visit` with the slot and count of every live entry holding `term`, oldest first. */
  forEachPosting(term: string, visit: (slot: number, count: number) => void): void {
    const id = this.termIds.get(term);
    if (id === undefined) return;
    for (let at = this.oldestPosting[id]!; at >= 0; at = this.nextPosting[at]!) {
      const slot = this.postingSlot[at]!;
      if (this.liveSlots[slot] === 1) visit(slot, this.postingCount[at]!);
    }
  }

  private termId(term: string): number {
    let id = this.termIds.get(term);
    if (id === undefined) {
      id = this.termsById.length;
      this.termIds.set(term, id);
      this.termsById.push(term);
      if (id >= this.entriesWithTerm.length) {
        const size = grownSize(this.entriesWithTerm.length, id + 1);
        this.entriesWithTerm = resized(this.entriesWithTerm, size);
        this.oldestPosting = resized(this.oldestPosting, size, -1);
        this.newestPosting = resized(this.newestPosting, size, -1);
      }
    }
    return id;
  }

  private append(slot: number, term: number, count: number): void {
    const at = this.postings++;
    this.postingSlot[at] = slot;
    this.postingTerm[at] = term;
    this.nextPosting[at] = -1;
    this.postingCount[at] = Math.min(count, 255);
    const newest = this.newestPosting[term]!;
    if (newest < 0) this.oldestPosting[term] = at;
    else this.nextPosting[newest] = at;
    this.newestPosting[term] = at;
  }

  private ensureSlot(slot: number): void {
    if (slot < this.liveSlots.length) return;
    const size = grownSize(this.liveSlots.length, slot + 1);
    this.firstPostingOf = resized(this.firstPostingOf, size);
    this.distinctTermsOf = resized(this.distinctTermsOf, size);
    this.liveSlots = resized(this.liveSlots, size);
  }

  private ensurePostings(needed: number): void {
    if (needed <= this.postingSlot.length) return;
    const size = grownSize(this.postingSlot.length, needed);
    this.postingSlot = resized(this.postingSlot, size);
    this.postingTerm = resized(this.postingTerm, size);
    this.nextPosting = resized(this.nextPosting, size);
    this.postingCount = resized(this.postingCount, size);
  }

  /** Rebuilds the posting arrays with the live entries' postings only, in the same order. */
  private vacuum(): void {
    const slot = this.postingSlot;
    const term = this.postingTerm;
    const count = this.postingCount;
    const total = this.postings;
    const live = total - this.deadPostings;
    this.postingSlot = new Int32Array(Math.max(1024, live));
    this.postingTerm = new Int32Array(this.postingSlot.length);
    this.nextPosting = new Int32Array(this.postingSlot.length);
    this.postingCount = new Uint8Array(this.postingSlot.length);
    this.oldestPosting.fill(-1);
    this.newestPosting.fill(-1);
    this.postings = 0;
    this.deadPostings = 0;
    let previousSlot = -1;
    for (let at = 0; at < total; at++) {
      const owner = slot[at]!;
      if (this.liveSlots[owner] !== 1) continue;
      if (owner !== previousSlot) this.firstPostingOf[owner] = this.postings;
      previousSlot = owner;
      this.append(owner, term[at]!, count[at]!);
    }
  }
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
