import { type IContextStore, type StoreKey, type ToolOutputRef, ToolOutputRefNotFoundError } from '@ctxkit/core';
import { surrogateSafeCut, utf8ByteLength } from '@ctxkit/core/strategy-kit';

import { buildInContextView, type InContextView, type InContextViewLimits } from './in-context-view';
import { streamLines } from './stream-lines';
import { textChunks } from './text-chunks';
import {
  assertToolOutputRefId,
  digestToolOutput,
  isToolOutputRefId,
  type ToolOutputDigest,
} from './tool-output-ref-id';

/** Options of {@link ToolOutputCache}. */
export interface ToolOutputCacheOptions extends InContextViewLimits {
  store: IContextStore;
  agentId: string;
  sessionId: string;
}

/** A `tool_output_cache` read: `limit` lines from line `offset` (1-based), that line from character `charOffset` on. */
export interface ReadToolOutputOptions {
  /** @default 1 */
  offset?: number;
  /** @default 2000 */
  limit?: number;
  /** Characters (UTF-16 code units) of line `offset` to skip. @default 0 */
  charOffset?: number;
}

/** A `tool_output_cache_grep` search. */
export interface GrepToolOutputOptions {
  /** A JavaScript regular expression (an invalid one is searched as plain text). */
  pattern: string;
  /** Lines of context before and after each match (0-10). @default 0 */
  context?: number;
  /** Matches shown at most (1-200). @default 50 */
  maxMatches?: number;
  /** @default false */
  ignoreCase?: boolean;
}

/** A cached output's ref; `stored` is false when the same content was cached already (nothing is written). */
export interface CachedToolOutput {
  ref: ToolOutputDigest;
  stored: boolean;
}

/** Default lines of one read. */
export const READ_DEFAULT_LIMIT = 2000;
const GREP_DEFAULT_MAX_MATCHES = 50;
const GREP_MAX_MATCHES = 200;
const GREP_MAX_CONTEXT = 10;
const GREP_MAX_PATTERN_LENGTH = 1000;
/** Characters of one line that grep searches (a line of megabytes is searched in its first 8 Mi). */
const GREP_LINE_SEARCH_CHARS = 8 * 1024 * 1024;
const META_SUFFIX = '.meta';

/** An output given its ref by {@link ToolOutputCache.cacheLater} and not written yet (or whose write failed). */
interface PendingWrite {
  text: string;
  ref: ToolOutputDigest;
  /** The write under way, once started. */
  writing?: Promise<void>;
  /** The last write failed: the next read of the ref tries again; {@link ToolOutputCache.storePending} leaves it. */
  failed?: boolean;
}

/**
 * The tool output cache of one agent and session: full outputs stored as blobs in the
 * context store (kind `tool-output`, name = ref id), expanded and searched by streaming over the
 * stored bytes. Ref ids are content addresses (`to_<32 hex>`), so caching the same output twice
 * stores it once.
 *
 * @throws ToolOutputRefNotFoundError (`CTXKIT_TOOL_OUTPUT_REF_NOT_FOUND`) for a malformed or unknown ref
 * @throws StoreError (`CTXKIT_STORE_ERROR`) when the store fails (a failed write leaves no blob behind)
 * @see docs/strategies/tool-output-cache.md
 */
export class ToolOutputCache {
  /** Outputs given a ref whose write is still owed, by ref id. */
  private readonly pending = new Map<string, PendingWrite>();
  /** The ref ids stored for this session: listed once when first needed, then kept up to date by this cache. */
  private storedIds: Promise<Set<string>> | undefined;
  /** {@link storedIds} once listed: from then on an output is given its ref without waiting. */
  private listedIds: Set<string> | undefined;

  constructor(private readonly options: ToolOutputCacheOptions) {}

  /** The view limits this cache builds views with. */
  get limits(): InContextViewLimits {
    return this.options;
  }

  private key(name: string): StoreKey {
    return { agentId: this.options.agentId, sessionId: this.options.sessionId, kind: 'tool-output', name };
  }

  /**
   * Stores a tool output (when not stored already) and returns its ref; writes in chunks of 1 Mi characters so
   * that a 100 MB text is never encoded whole.
   */
  async put(text: string, ref: ToolOutputDigest = digestToolOutput(text)): Promise<CachedToolOutput> {
    const key = this.key(ref.id);
    if ((await this.options.store.blobSize(key)) === ref.byte_size) {
      await this.markStored(ref.id);
      return { ref, stored: false };
    }
    try {
      let written = false;
      for (const chunk of textChunks(text)) {
        await (written ? this.options.store.appendBlob(key, chunk) : this.options.store.putBlob(key, chunk));
        written = true;
      }
      if (!written) await this.options.store.putBlob(key, '');
      await this.options.store.set(this.key(ref.id + META_SUFFIX), ref);
    } catch (error) {
      await this.options.store.deleteBlob(key).catch(() => false);
      throw error;
    }
    await this.markStored(ref.id);
    return { ref, stored: true };
  }

  /**
   * Gives an output its ref now and writes it later: by {@link storePending}, or when the ref is first read (`ref`,
   * `has`, a read, a grep, a list), whichever comes first. `stored` is true when the output was neither stored for
   * this session nor owed already (it will be written now). The strategy composes a payload this way and writes after
   * returning it, so a payload that names 1,500 outputs by ref is not held up by 1,500 store writes, and every ref it
   * names resolves. Answers at once (no promise) once the session's stored refs are listed, which the first call does.
   */
  cacheLater(text: string): CachedToolOutput | Promise<CachedToolOutput> {
    const ref = digestToolOutput(text);
    const owed = this.pending.has(ref.id);
    if (this.listedIds) return this.owe(text, ref, owed, this.listedIds);
    return this.knownStored().then((listed) => this.owe(text, ref, owed, listed));
  }

  private owe(text: string, ref: ToolOutputDigest, owed: boolean, listed: ReadonlySet<string>): CachedToolOutput {
    if (!owed) this.pending.set(ref.id, { text, ref });
    return { ref, stored: !owed && !listed.has(ref.id) };
  }

  /** True while an output given its ref by {@link cacheLater} waits for its first write. */
  get hasPending(): boolean {
    for (const write of this.pending.values()) if (!write.failed && !write.writing) return true;
    return false;
  }

  /**
   * Writes every output {@link cacheLater} gave a ref and that is not written yet; returns the writes
   * that failed (each is tried again when its ref is read). Never throws.
   */
  async storePending(): Promise<Array<{ refId: string; error: unknown }>> {
    const failures: Array<{ refId: string; error: unknown }> = [];
    for (const [refId, write] of [...this.pending]) {
      if (write.failed) continue;
      try {
        await this.settle(refId);
      } catch (error) {
        failures.push({ refId, error });
      }
    }
    return failures;
  }

  /** Writes the output owed for `refId`, if any (a write under way is awaited, a failed one tried again). */
  private async settle(refId: string): Promise<void> {
    const write = this.pending.get(refId);
    if (!write) return;
    write.writing ??= this.put(write.text, write.ref).then(
      () => {
        if (this.pending.get(refId) === write) this.pending.delete(refId);
      },
      (error: unknown) => {
        write.writing = undefined;
        write.failed = true;
        throw error;
      },
    );
    await write.writing;
  }

  /** The ref ids stored for this session, listed from the store the first time. */
  private knownStored(): Promise<Set<string>> {
    this.storedIds ??= this.listStored().then((ids) => (this.listedIds = new Set(ids)));
    return this.storedIds;
  }

  private async markStored(refId: string): Promise<void> {
    if (this.storedIds) (await this.storedIds).add(refId);
  }

  private async listStored(): Promise<string[]> {
    const keys = await this.options.store.listBlobs({
      agentId: this.options.agentId,
      sessionId: this.options.sessionId,
      kind: 'tool-output',
    });
    return keys.map((key) => key.name).filter(isToolOutputRefId);
  }

  /** Caches an output now and builds its in-context view (what the benchmarks measure). */
  async cache(text: string): Promise<CachedToolOutput & { view: InContextView }> {
    const { ref, stored } = await this.put(text);
    return { ref, view: buildInContextView(text, ref, this.options), stored };
  }

  /** True when the ref is well-formed and stored (or owed: written when it is read). */
  async has(refId: string): Promise<boolean> {
    if (!isToolOutputRefId(refId)) return false;
    if (this.pending.has(refId)) return true;
    return (await this.options.store.blobSize(this.key(refId))) !== undefined;
  }

  /**
   * The stored ref (size and line count), or throws. An output given its ref by {@link cacheLater}
   * and not written yet is written first.
   * @throws StoreError (`CTXKIT_STORE_ERROR`) when that write fails
   */
  async ref(refId: unknown): Promise<ToolOutputRef> {
    assertToolOutputRefId(refId);
    await this.settle(refId);
    const size = await this.options.store.blobSize(this.key(refId));
    if (size === undefined) throw new ToolOutputRefNotFoundError(refId);
    const meta = await this.options.store.get<ToolOutputDigest>(this.key(refId + META_SUFFIX));
    return { id: refId, byte_size: size, ...(meta ? { line_count: meta.line_count } : {}) };
  }

  /** The whole stored output as text (for tests and recovery; the tools stream instead). */
  async readAll(refId: unknown): Promise<string> {
    const { id } = await this.ref(refId);
    const decoder = new TextDecoder('utf-8');
    let text = '';
    for await (const chunk of this.options.store.readBlob(this.key(id)))
      text += decoder.decode(chunk, { stream: true });
    return text + decoder.decode();
  }

  /** Bytes of the rows of one read or grep answer: the message cap less room for its header and closing note. */
  private get answerBudget(): number {
    return Math.max(1024, this.options.maxMessageBytes - 512);
  }

  /**
   * `tool_output_cache`: line-numbered text like a file read, `offset`/`limit` in
   * lines, `charOffset` characters into the first line. Lines longer than `maxLineLength` (from
   * where they are shown) are cut with a marker naming the `char_offset` to read on from; the
   * answer stays within `maxMessageBytes` and says where to continue. The rows' text, read on
   * through every cut, joined by `\n`, is the output byte for byte (with a final `\n` when the
   * header's byte size counts one more).
   */
  async read(refId: unknown, options: ReadToolOutputOptions = {}): Promise<string> {
    const ref = await this.ref(refId);
    const offset = clampedInteger(options.offset ?? 1, 1);
    const limit = clampedInteger(options.limit ?? READ_DEFAULT_LIMIT, 1);
    const charOffset = clampedInteger(options.charOffset ?? 0, 0);
    const maxLine = this.options.maxLineLength;
    const budget = this.answerBudget;
    const rows: string[] = [];
    let used = 0;
    let last = offset - 1;
    let stopped = false;
    let firstFrom = 0;
    const skip = charOffset > 0 ? { line: offset, chars: charOffset } : undefined;
    for await (const line of streamLines(this.options.store.readBlob(this.key(ref.id)), maxLine + 1, skip)) {
      if (line.number < offset) continue;
      if (line.number >= offset + limit) {
        stopped = true;
        break;
      }
      if (line.number === offset) firstFrom = line.from;
      let shown = line.text;
      if (line.length - line.from > maxLine) {
        const kept = line.text.slice(0, surrogateSafeCut(line.text, maxLine));
        shown = `${kept}${longLineCutMarker(line.number, line.from + kept.length, line.length)}`;
      }
      const row = `${String(line.number).padStart(6, ' ')}\t${shown}`;
      const rowBytes = utf8ByteLength(row) + 1;
      if (used + rowBytes > budget && rows.length > 0) {
        stopped = true;
        break;
      }
      rows.push(row);
      used += rowBytes;
      last = line.number;
    }
    const head = `[tool_output_cache ref=${ref.id}: `;
    const total = ref.line_count ?? '?';
    if (rows.length === 0)
      return `${head}no lines from ${offset} (the output has ${total} lines, ${ref.byte_size} bytes)]`;
    const from = firstFrom > 0 ? `, line ${offset} from char ${firstFrom}` : '';
    const header = `${head}lines ${offset}-${last} of ${total}, ${ref.byte_size} bytes${from}]`;
    const more =
      stopped || (ref.line_count !== undefined && last < ref.line_count)
        ? `\n[more: continue with offset=${last + 1}]`
        : '';
    return `${header}\n${rows.join('\n')}${more}`;
  }

  /**
   * `tool_output_cache_grep`: matching lines with their numbers (`N:` for a match, `N-` for context,
   * `--` between groups), at most `maxMatches`, streamed line by line with a ring of `context`
   * lines before.
   */
  async grep(refId: unknown, options: GrepToolOutputOptions): Promise<string> {
    const ref = await this.ref(refId);
    const context = clampedInteger(options.context ?? 0, 0, GREP_MAX_CONTEXT);
    const maxMatches = clampedInteger(options.maxMatches ?? GREP_DEFAULT_MAX_MATCHES, 1, GREP_MAX_MATCHES);
    const pattern = String(options.pattern ?? '').slice(0, GREP_MAX_PATTERN_LENGTH);
    const regex = compilePattern(pattern, options.ignoreCase === true);
    const maxLine = this.options.maxLineLength;
    const budget = this.answerBudget;
    const show = (line: { number: number; text: string; length: number }, match: RegExpExecArray | null): string => {
      if (line.length <= maxLine && line.text.length === line.length) return line.text;
      const at = match ? Math.max(0, match.index - Math.floor(maxLine / 4)) : 0;
      const rest = line.text.slice(at);
      const piece = rest.slice(0, surrogateSafeCut(rest, maxLine));
      const cut = at + piece.length < line.length ? longLineCutMarker(line.number, at + piece.length, line.length) : '';
      return `${at > 0 ? `[… ${at} chars] ` : ''}${piece}${cut}`;
    };
    const before: Array<{ number: number; text: string; length: number }> = [];
    const rows: string[] = [];
    let used = 0;
    let matches = 0;
    let after = 0;
    let lastPrinted = 0;
    let truncated = false;
    let scanned = 0;
    const push = (row: string): boolean => {
      const bytes = utf8ByteLength(row) + 1;
      if (used + bytes > budget) {
        truncated = true;
        return false;
      }
      rows.push(row);
      used += bytes;
      return true;
    };
    outer: for await (const line of streamLines(
      this.options.store.readBlob(this.key(ref.id)),
      GREP_LINE_SEARCH_CHARS,
    )) {
      scanned = line.number;
      const match = matches < maxMatches ? regex.exec(line.text) : null;
      if (match) {
        if (lastPrinted > 0 && (before[0]?.number ?? line.number) > lastPrinted + 1) if (!push('--')) break outer;
        for (const previous of before) if (!push(`${previous.number}-${show(previous, null)}`)) break outer;
        before.length = 0;
        if (!push(`${line.number}:${show(line, match)}`)) break outer;
        lastPrinted = line.number;
        matches++;
        after = context;
        continue;
      }
      if (after > 0) {
        if (!push(`${line.number}-${show(line, null)}`)) break outer;
        lastPrinted = line.number;
        after--;
        continue;
      }
      if (matches >= maxMatches) {
        truncated = true;
        break;
      }
      if (context > 0) {
        before.push({
          number: line.number,
          text: line.text.length > maxLine * 2 ? line.text.slice(0, maxLine * 2) : line.text,
          length: line.length,
        });
        if (before.length > context) before.shift();
      }
    }
    const header =
      `[tool_output_cache_grep ref=${ref.id} pattern=${JSON.stringify(pattern)}: ${matches} ` +
      `match${matches === 1 ? '' : 'es'}${
        truncated
          ? ` (stopped at line ${scanned}; more may follow: narrow the pattern or read with tool_output_cache)`
          : ''
      } in ${ref.line_count ?? '?'} lines]`;
    return rows.length === 0 ? header : `${header}\n${rows.join('\n')}`;
  }

  /** Deletes a cached output (one still owed is not written). */
  async delete(refId: string): Promise<boolean> {
    if (!isToolOutputRefId(refId)) return false;
    const owed = this.pending.get(refId);
    if (owed) {
      this.pending.delete(refId);
      await owed.writing?.catch(() => undefined);
    }
    if (this.storedIds) (await this.storedIds).delete(refId);
    await this.options.store.delete(this.key(refId + META_SUFFIX)).catch(() => false);
    return (await this.options.store.deleteBlob(this.key(refId))) || owed !== undefined;
  }

  /** Every ref id stored for this session (the outputs still owed are written first: a failed one stays owed). */
  async list(): Promise<string[]> {
    for (const refId of [...this.pending.keys()]) await this.settle(refId).catch(() => undefined);
    return this.listStored();
  }

  /** Deletes every stored (or owed) output whose id is not in `keep`. Returns the collected ids. */
  async collect(keep: ReadonlySet<string>): Promise<string[]> {
    const collected: string[] = [];
    // Outputs still owed are dropped unwritten when not kept.
    const ids = new Set([...(await this.listStored()), ...this.pending.keys()]);
    for (const id of ids) {
      if (keep.has(id)) continue;
      if (await this.delete(id)) collected.push(id);
    }
    return collected;
  }
}

/**
 * The marker after the part of a long line a read or a grep shows: the line's length and the
 * `tool_output_cache` arguments that read on from the first character not shown.
 */
function longLineCutMarker(line: number, next: number, length: number): string {
  return ` [… line cut at char ${next} of ${length}: read on with offset=${line} char_offset=${next}]`;
}

/** `value` rounded down into `[min, max]`. */
function clampedInteger(value: number, min: number, max = Infinity): number {
  return Math.min(max, Math.max(min, Math.floor(value)));
}

function compilePattern(pattern: string, ignoreCase: boolean): RegExp {
  const flags = ignoreCase ? 'i' : '';
  try {
    return new RegExp(pattern, flags);
  } catch {
    return new RegExp(pattern.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'), flags);
  }
}
