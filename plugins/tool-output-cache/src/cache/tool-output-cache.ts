import { surrogateSafeCut, ToolOutputRefNotFoundError, utf8ByteLength, type ContextStore, type StoreKey, type ToolOutputRef } from '@ctxkit/core';
import { buildInContextView, type InContextView, type InContextViewLimits } from './in-context-view';
import { streamLines } from './stream-lines';
import { byteChunks, textChunks } from './text-chunks';
import { assertToolOutputRefId, digestToolOutput, isToolOutputRefId } from './tool-output-ref-id';

/** Options of {@link ToolOutputCache}. */
export interface ToolOutputCacheOptions extends InContextViewLimits {
  store: ContextStore;
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
  view: InContextView;
  /** False when the same content was already cached (nothing was written). */
  stored: boolean;
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
  async put(data: string | Uint8Array): Promise<{ ref: ToolOutputRef; stored: boolean }> {
    const digest = digestToolOutput(data);
    const ref: ToolOutputRef = { id: digest.refId, byte_size: digest.byteSize, line_count: digest.lineCount };
    const key = this.key(digest.refId);
    if ((await this.options.store.blobSize(key)) === digest.byteSize) return { ref, stored: false };
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
    return { ref, stored: true };
  }

  /** Caches an output and builds its in-context view. Used by the strategy and the benchmarks. */
  async cache(text: string): Promise<CachedToolOutput> {
    const { ref, stored } = await this.put(text);
    return { ref, view: buildInContextView(text, ref, this.limits), stored };
  }

  /** What {@link cache} would return for `text`, without storing it: its ref (its content address) and in-context view. */
  describe(text: string): Omit<CachedToolOutput, 'stored'> {
    const digest = digestToolOutput(text);
    const ref: ToolOutputRef = { id: digest.refId, byte_size: digest.byteSize, line_count: digest.lineCount };
    return { ref, view: buildInContextView(text, ref, this.limits) };
  }

  /** True when the ref is well-formed and stored. */
  async has(refId: string): Promise<boolean> {
    if (!isToolOutputRefId(refId)) return false;
    return (await this.options.store.blobSize(this.key(refId))) !== undefined;
  }

  /** The stored ref (size and line count), or throws. */
  async ref(refId: unknown): Promise<ToolOutputRef> {
    assertToolOutputRefId(refId);
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
   * lines. Lines longer than `maxLineLength` are cut with a marker; the answer stays within
   * `maxMessageBytes` and says where to continue.
   */
  async read(refId: unknown, options: ReadToolOutputOptions = {}): Promise<string> {
    const ref = await this.ref(refId);
    const offset = Math.max(1, Math.floor(options.offset ?? 1));
    const limit = Math.max(1, Math.floor(options.limit ?? READ_DEFAULT_LIMIT));
    const maxLine = this.options.maxLineLength;
    const budget = Math.max(1024, this.options.maxMessageBytes - 512);
    const rows: string[] = [];
    let used = 0;
    let last = offset - 1;
    let stoppedBy: 'limit' | 'bytes' | 'end' = 'end';
    for await (const line of streamLines(this.options.store.readBlob(this.key(ref.id)), maxLine + 1)) {
      if (line.number < offset) continue;
      if (line.number >= offset + limit) {
        stoppedBy = 'limit';
        break;
      }
      const shown = line.length > maxLine ? `${line.text.slice(0, surrogateSafeCut(line.text, maxLine))} [… line cut: ${line.length} chars in all]` : line.text;
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
    const header =
      rows.length === 0
        ? `[tool_output_cache ref=${ref.id}: no lines from ${offset} (the output has ${total ?? '?'} lines, ${ref.byte_size} bytes)]`
        : `[tool_output_cache ref=${ref.id}: lines ${offset}-${last} of ${total ?? '?'}, ${ref.byte_size} bytes]`;
    const more = stoppedBy !== 'end' || (total !== undefined && last < total && rows.length > 0) ? `\n[more: continue with offset=${last + 1}]` : '';
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
    const maxMatches = Math.min(GREP_MAX_MATCHES, Math.max(1, Math.floor(options.maxMatches ?? GREP_DEFAULT_MAX_MATCHES)));
    const pattern = String(options.pattern ?? '').slice(0, GREP_MAX_PATTERN_LENGTH);
    const regex = compilePattern(pattern, options.ignoreCase === true);
    const maxLine = this.options.maxLineLength;
    const budget = Math.max(1024, this.options.maxMessageBytes - 512);
    const show = (line: { text: string; length: number }, match: RegExpExecArray | null): string => {
      if (line.length <= maxLine && line.text.length === line.length) return line.text;
      const at = match ? Math.max(0, match.index - Math.floor(maxLine / 4)) : 0;
      const rest = line.text.slice(at);
      const piece = rest.slice(0, surrogateSafeCut(rest, maxLine));
      return `${at > 0 ? `[… ${at} chars] ` : ''}${piece} [… line of ${line.length} chars]`;
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
    outer: for await (const line of streamLines(this.options.store.readBlob(this.key(ref.id)), GREP_LINE_SEARCH_CHARS)) {
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
        before.push({ number: line.number, text: line.text.length > maxLine * 2 ? line.text.slice(0, maxLine * 2) : line.text, length: line.length });
        if (before.length > context) before.shift();
      }
    }
    const header = `[tool_output_cache_grep ref=${ref.id} pattern=${JSON.stringify(pattern)}: ${matches} match${matches === 1 ? '' : 'es'}${
      truncated ? ` (stopped at line ${scanned}; more may follow: narrow the pattern or read with tool_output_cache)` : ''
    } in ${ref.line_count ?? '?'} lines]`;
    return rows.length === 0 ? header : `${header}\n${rows.join('\n')}`;
  }

  /** Deletes a cached output. */
  async delete(refId: string): Promise<boolean> {
    if (!isToolOutputRefId(refId)) return false;
    await this.options.store.delete(this.key(refId + META_SUFFIX)).catch(() => false);
    return this.options.store.deleteBlob(this.key(refId));
  }

  /** Every ref id stored for this agent and session. */
  async list(): Promise<string[]> {
    const keys = await this.options.store.listBlobs({ agentId: this.options.agentId, sessionId: this.options.sessionId, kind: 'tool-output' });
    return keys.map((key) => key.name).filter(isToolOutputRefId);
  }

  /**
   * Deletes every stored output whose id is not in `keep`. Returns the collected ids.
   */
  async collect(keep: ReadonlySet<string>): Promise<string[]> {
    const collected: string[] = [];
    for (const id of await this.list()) {
      if (keep.has(id)) continue;
      if (await this.delete(id)) collected.push(id);
    }
    return collected;
  }
}

function compilePattern(pattern: string, ignoreCase: boolean): RegExp {
  const flags = ignoreCase ? 'i' : '';
  try {
    return new RegExp(pattern, flags);
  } catch {
    return new RegExp(pattern.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'), flags);
  }
}
