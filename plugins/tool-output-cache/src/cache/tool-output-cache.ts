import { type IContextStore, type StoreKey, type ToolOutputRef, ToolOutputRefNotFoundError } from '@ctxkit/core';
import { surrogateSafeCut, utf8ByteLength } from '@ctxkit/core/strategy-kit';

import { buildInContextView, type InContextView, type InContextViewLimits } from './in-context-view';
import { streamLines } from './stream-lines';
import { byteChunks, textChunks } from './text-chunks';
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

/** A `tool_output_cache` read: lines, 1-based. */
export interface ReadToolOutputOptions {
  /**
   * First line to show, 1-based.
   * @default 1
   */
  offset?: number;
  /**
   * Lines to show at most.
   * @default 2000
   */
  limit?: number;
  /**
   * Characters (UTF-16 code units) of line `offset` to skip: that line is shown from this character
   * on. A line longer than `maxLineLength` is shown in parts, each cut one naming the `char_offset`
   * it continues at.
   * @default 0
   */
  charOffset?: number;
}

/** A `tool_output_cache_grep` search. */
export interface GrepToolOutputOptions {
  /** A JavaScript regular expression (an invalid one is searched as plain text). */
  pattern: string;
  /**
   * Lines of context before and after each match (0-10).
   * @default 0
   */
  context?: number;
  /**
   * Matches shown at most (1-200).
   * @default 50
   */
  maxMatches?: number;
  /** Match case-insensitively. @default false */
  ignoreCase?: boolean;
}

/** A cached output and its in-context view. */
export interface CachedToolOutput {
  ref: ToolOutputRef;
  /**
   * Built when first read by {@link ToolOutputCache.cacheLater} and {@link ToolOutputCache.describe}:
   * an output the payload shows only as its placeholder is never scanned for it.
   */
  readonly view: InContextView;
  /** False when the same content was already cached (nothing was written). */
  stored: boolean;
}

/**
 * A {@link CachedToolOutput} whose view is built when first read (a class: one is made for every output a first call
 * reaches).
 */
class LazilyViewedOutput implements CachedToolOutput {
  private built: InContextView | undefined;

  constructor(
    private readonly text: string,
    readonly ref: ToolOutputRef,
    readonly stored: boolean,
    private readonly limits: InContextViewLimits,
  ) {}

  get view(): InContextView {
    this.built ??= buildInContextView(this.text, this.ref, this.limits);
    return this.built;
  }
}

/** Default and maximum lines of one read. */
export const READ_DEFAULT_LIMIT = 2000;
/** Default and maximum matches of one grep. */
export const GREP_DEFAULT_MAX_MATCHES = 50;
export const GREP_MAX_MATCHES = 200;
export const GREP_MAX_CONTEXT = 10;
/** Longest pattern accepted by grep. */
export const GREP_MAX_PATTERN_LENGTH = 1000;
/** Characters of one line that grep searches (a line of megabytes is searched in its first 8 Mi). */
export const GREP_LINE_SEARCH_CHARS = 8 * 1024 * 1024;

const META_SUFFIX = '.meta';
const WRITE_CHUNK = 1 << 20;

interface RefMeta {
  id: string;
  byte_size: number;
  line_count: number;
}

/**
 * An output given its ref by {@link ToolOutputCache.cacheLater} and not written yet (or whose write failed: tried again
 * when it is read).
 */
interface PendingWrite {
  data: string;
  digest: ToolOutputDigest;
  /** The write under way, once started. */
  writing?: Promise<void>;
  /** The last write failed: the next read of the ref tries again; {@link ToolOutputCache.storePending} leaves it. */
  failed?: boolean;
}

/** A write {@link ToolOutputCache.storePending} could not make. */
export interface FailedToolOutputWrite {
  refId: string;
  error: unknown;
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
    return { maxMessageBytes: this.options.maxMessageBytes, maxLineLength: this.options.maxLineLength };
  }

  private key(name: string): StoreKey {
    return { agentId: this.options.agentId, sessionId: this.options.sessionId, kind: 'tool-output', name };
  }

  /**
   * Stores a tool output (when not stored already) and returns its ref; writes in chunks of 1 MiB so
   * that a 100 MB text is never encoded whole.
   */
  async put(data: string | Uint8Array, known?: ToolOutputDigest): Promise<{ ref: ToolOutputRef; stored: boolean }> {
    const digest = known ?? digestToolOutput(data);
    const ref: ToolOutputRef = { id: digest.refId, byte_size: digest.byteSize, line_count: digest.lineCount };
    const key = this.key(digest.refId);
    if ((await this.options.store.blobSize(key)) === digest.byteSize) {
      await this.markStored(digest.refId);
      return { ref, stored: false };
    }
    try {
      let first = true;
      const chunks = typeof data === 'string' ? textChunks(data, WRITE_CHUNK) : byteChunks(data, WRITE_CHUNK);
      for (const chunk of chunks) {
        if (first) await this.options.store.putBlob(key, chunk);
        else await this.options.store.appendBlob(key, chunk);
        first = false;
      }
      if (first) await this.options.store.putBlob(key, '');
      const meta: RefMeta = { id: digest.refId, byte_size: digest.byteSize, line_count: digest.lineCount };
      await this.options.store.set(this.key(digest.refId + META_SUFFIX), meta);
    } catch (error) {
      await this.options.store.deleteBlob(key).catch(() => false);
      throw error;
    }
    await this.markStored(digest.refId);
    return { ref, stored: true };
  }

  /**
   * Gives an output its ref now (its in-context view when first read) and writes it later: by {@link storePending}, or
   * when the ref is first read (`ref`, `has`, a read, a grep, a list), whichever comes first. `stored`
   * is true when the output was neither stored for this session nor owed already (it will be written
   * now). The strategy composes a payload this way and writes after returning it, so a payload that
   * names 1,500 outputs by ref is not held up by 1,500 store writes, and every ref it names resolves.
   * Answers at once (no promise) once the session's stored refs are listed, which the first call does.
   */
  cacheLater(text: string): CachedToolOutput | Promise<CachedToolOutput> {
    const digest = digestToolOutput(text);
    const owed = this.pending.has(digest.refId);
    if (this.listedIds) return this.owe(text, digest, owed, this.listedIds);
    return this.knownStored().then((listed) => this.owe(text, digest, owed, listed));
  }

  /**
   * The ref of an output {@link cacheLater} hashed, its view built when first read, its write owed unless it was
   * already.
   */
  private owe(text: string, digest: ToolOutputDigest, owed: boolean, listed: ReadonlySet<string>): CachedToolOutput {
    const ref: ToolOutputRef = { id: digest.refId, byte_size: digest.byteSize, line_count: digest.lineCount };
    const stored = !owed && !listed.has(digest.refId);
    if (!owed) this.pending.set(digest.refId, { data: text, digest });
    return new LazilyViewedOutput(text, ref, stored, this.limits);
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
  async storePending(): Promise<FailedToolOutputWrite[]> {
    const failures: FailedToolOutputWrite[] = [];
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
    write.writing ??= this.put(write.data, write.digest).then(
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

  /** Writes every output still owed (those whose write fails stay owed). */
  private async settleAll(): Promise<void> {
    for (const refId of [...this.pending.keys()]) await this.settle(refId).catch(() => undefined);
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

  /** Caches an output and builds its in-context view. Used by the strategy and the benchmarks. */
  async cache(text: string): Promise<CachedToolOutput> {
    const { ref, stored } = await this.put(text);
    return { ref, view: buildInContextView(text, ref, this.limits), stored };
  }

  /**
   * What {@link cache} would return for `text`, without storing it: its ref (its content address) and in-context view
   * (built when first read).
   */
  describe(text: string): Omit<CachedToolOutput, 'stored'> {
    const digest = digestToolOutput(text);
    const ref: ToolOutputRef = { id: digest.refId, byte_size: digest.byteSize, line_count: digest.lineCount };
    return new LazilyViewedOutput(text, ref, false, this.limits);
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
    const meta = await this.options.store.get<RefMeta>(this.key(refId + META_SUFFIX));
    return { id: refId, byte_size: size, ...(meta ? { line_count: meta.line_count } : {}) };
  }

  /** Streams the stored bytes of a ref. */
  async *bytes(refId: unknown): AsyncGenerator<Uint8Array> {
    await this.ref(refId);
    yield* this.options.store.readBlob(this.key(refId as string));
  }

  /** The whole stored output as text (for tests and recovery; the tools stream instead). */
  async readAll(refId: unknown): Promise<string> {
    const decoder = new TextDecoder('utf-8');
    let text = '';
    for await (const chunk of this.bytes(refId)) text += decoder.decode(chunk, { stream: true });
    return text + decoder.decode();
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
    const offset = Math.max(1, Math.floor(options.offset ?? 1));
    const limit = Math.max(1, Math.floor(options.limit ?? READ_DEFAULT_LIMIT));
    const charOffset = Math.max(0, Math.floor(options.charOffset ?? 0));
    const maxLine = this.options.maxLineLength;
    const budget = Math.max(1024, this.options.maxMessageBytes - 512);
    const rows: string[] = [];
    let used = 0;
    let last = offset - 1;
    let stoppedBy: 'limit' | 'bytes' | 'end' = 'end';
    let firstFrom = 0;
    const skip = charOffset > 0 ? { line: offset, chars: charOffset } : undefined;
    for await (const line of streamLines(this.options.store.readBlob(this.key(ref.id)), maxLine + 1, skip)) {
      if (line.number < offset) continue;
      if (line.number >= offset + limit) {
        stoppedBy = 'limit';
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
        stoppedBy = 'bytes';
        break;
      }
      rows.push(row);
      used += rowBytes;
      last = line.number;
    }
    const total = ref.line_count;
    const from = firstFrom > 0 ? `, line ${offset} from char ${firstFrom}` : '';
    const header =
      rows.length === 0
        ? `[tool_output_cache ref=${ref.id}: no lines from ${offset} (the output has ${total ?? '?'} ` +
          `lines, ${ref.byte_size} bytes)]`
        : `[tool_output_cache ref=${ref.id}: lines ${offset}-${last} of ${total ?? '?'}, ${ref.byte_size} ` +
          `bytes${from}]`;
    const more =
      stoppedBy !== 'end' || (total !== undefined && last < total && rows.length > 0)
        ? `\n[more: continue with offset=${last + 1}]`
        : '';
    return rows.length === 0 ? header : `${header}\n${rows.join('\n')}${more}`;
  }

  /**
   * `tool_output_cache_grep`: matching lines with their numbers (`N:` for a match, `N-` for context,
   * `--` between groups), at most `maxMatches`, streamed line by line with a ring of `context`
   * lines before.
   */
  async grep(refId: unknown, options: GrepToolOutputOptions): Promise<string> {
    const ref = await this.ref(refId);
    const context = Math.min(GREP_MAX_CONTEXT, Math.max(0, Math.floor(options.context ?? 0)));
    const maxMatches = Math.min(
      GREP_MAX_MATCHES,
      Math.max(1, Math.floor(options.maxMatches ?? GREP_DEFAULT_MAX_MATCHES)),
    );
    const pattern = String(options.pattern ?? '').slice(0, GREP_MAX_PATTERN_LENGTH);
    const regex = compilePattern(pattern, options.ignoreCase === true);
    const maxLine = this.options.maxLineLength;
    const budget = Math.max(1024, this.options.maxMessageBytes - 512);
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
      regex.lastIndex = 0;
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

  /** Every ref id stored for this agent and session (the outputs still owed are written first). */
  async list(): Promise<string[]> {
    await this.settleAll();
    return this.listStored();
  }

  /**
   * Deletes every stored (or owed) output whose id is not in `keep`. Returns the collected ids.
   */
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
export function longLineCutMarker(line: number, next: number, length: number): string {
  return ` [… line cut at char ${next} of ${length}: read on with offset=${line} char_offset=${next}]`;
}

function compilePattern(pattern: string, ignoreCase: boolean): RegExp {
  const flags = ignoreCase ? 'i' : '';
  try {
    return new RegExp(pattern, flags);
  } catch {
    return new RegExp(pattern.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'), flags);
  }
}
