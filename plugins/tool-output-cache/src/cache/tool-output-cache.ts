import { type IContextStore, type StoreKey, type ToolOutputRef, ToolOutputRefNotFoundError } from '@ctxkit/core';
import { surrogateSafeCut, utf8ByteLength } from '@ctxkit/core/strategy-kit';

import { buildInContextView, type InContextView, type InContextViewLimits } from './in-context-view';
import { type StreamedLine, streamLines } from './stream-lines';
import { digestToolOutput, isToolOutputRefId, textChunks, type ToolOutputDigest } from './tool-output-ref-id';

export interface ToolOutputCacheOptions extends InContextViewLimits {
  store: IContextStore;
  agentId: string;
  sessionId: string;
}

/** A cached output's ref; `stored` is false when the same content was cached already (nothing is written). */
export interface CachedToolOutput {
  ref: ToolOutputDigest;
  stored: boolean;
}

export const READ_DEFAULT_LIMIT = 2000;
const GREP_DEFAULT_MAX_MATCHES = 50;
const GREP_MAX_MATCHES = 200;
const GREP_MAX_CONTEXT = 10;
const GREP_MAX_PATTERN_LENGTH = 1000;
/** Grep searches a line of megabytes in its first 8 Mi characters. */
const GREP_LINE_SEARCH_CHARS = 8 * 1024 * 1024;
const META_SUFFIX = '.meta';

/** An output given its ref by {@link ToolOutputCache.cacheLater} whose write is owed. */
interface PendingWrite {
  text: string;
  ref: ToolOutputDigest;
  writing?: Promise<void>;
  /** Tried again by the next read of the ref, not by {@link ToolOutputCache.storePending}. */
  failed?: boolean;
}

/**
 * The tool output cache of one session: outputs stored as `tool-output` blobs named by their ref id (a content address:
 * the same output is stored once), read and searched by streaming the stored bytes.
 * @throws ToolOutputRefNotFoundError (`CTXKIT_TOOL_OUTPUT_REF_NOT_FOUND`) for a malformed or unknown ref
 * @throws StoreError (`CTXKIT_STORE_ERROR`) when the store fails (a failed write leaves no blob behind)
 * @see docs/strategies/tool-output-cache.md
 */
export class ToolOutputCache {
  private readonly pending = new Map<string, PendingWrite>();
  /** The session's stored ref ids: listed from the store once, then kept up to date here. */
  private storedIds: Promise<Set<string>> | Set<string> | undefined;

  constructor(private readonly options: ToolOutputCacheOptions) {}

  get limits(): InContextViewLimits {
    return this.options;
  }

  private key(name: string): StoreKey {
    return { agentId: this.options.agentId, sessionId: this.options.sessionId, kind: 'tool-output', name };
  }

  /** Stores an output unless stored already, in 1 Mi character chunks: a 100 MB text is never encoded whole. */
  async put(text: string, ref: ToolOutputDigest = digestToolOutput(text)): Promise<CachedToolOutput> {
    const key = this.key(ref.id);
    const stored = (await this.options.store.blobSize(key)) !== ref.byte_size;
    if (stored) {
      try {
        const chunks = textChunks(text);
        await this.options.store.putBlob(key, chunks.next().value ?? '');
        for (const chunk of chunks) await this.options.store.appendBlob(key, chunk);
        await this.options.store.set(this.key(ref.id + META_SUFFIX), ref);
      } catch (error) {
        await this.options.store.deleteBlob(key).catch(() => false);
        throw error;
      }
    }
    await this.markStored(ref.id);
    return { ref, stored };
  }

  /**
   * Gives an output its ref now and writes it by {@link storePending} or when the ref is first read: a payload naming
   * 1,500 refs is not held up by 1,500 writes. `stored`: neither stored nor owed yet. A promise until refs are listed.
   */
  cacheLater(text: string): CachedToolOutput | Promise<CachedToolOutput> {
    const ref = digestToolOutput(text);
    const owed = this.pending.has(ref.id);
    const owe = (listed: ReadonlySet<string>): CachedToolOutput => {
      if (!owed) this.pending.set(ref.id, { text, ref });
      return { ref, stored: !owed && !listed.has(ref.id) };
    };
    this.storedIds ??= this.listStored().then((ids) => (this.storedIds = new Set(ids)));
    return this.storedIds instanceof Set ? owe(this.storedIds) : this.storedIds.then(owe);
  }

  /** True while an output owed by {@link cacheLater} waits for its first write. */
  get hasPending(): boolean {
    for (const write of this.pending.values()) if (!write.failed && !write.writing) return true;
    return false;
  }

  /** Writes the owed outputs; returns the writes that failed (each tried again when its ref is read). Never throws. */
  async storePending(): Promise<Array<{ refId: string; error: unknown }>> {
    const failures: Array<{ refId: string; error: unknown }> = [];
    for (const [refId, write] of [...this.pending])
      if (!write.failed) await this.settle(refId).catch((error: unknown) => failures.push({ refId, error }));
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

  private async markStored(refId: string): Promise<void> {
    if (this.storedIds) (await this.storedIds).add(refId);
  }

  private async listStored(): Promise<string[]> {
    const { store, agentId, sessionId } = this.options;
    const keys = await store.listBlobs({ agentId, sessionId, kind: 'tool-output' });
    return keys.map((key) => key.name).filter(isToolOutputRefId);
  }

  /** Caches an output now and builds its in-context view (what the benchmarks measure). */
  async cache(text: string): Promise<CachedToolOutput & { view: InContextView }> {
    const { ref, stored } = await this.put(text);
    return { ref, view: buildInContextView(text, ref, this.options), stored };
  }

  /** True when the ref is well-formed and stored or owed. */
  async has(refId: string): Promise<boolean> {
    if (!isToolOutputRefId(refId)) return false;
    return this.pending.has(refId) || (await this.options.store.blobSize(this.key(refId))) !== undefined;
  }

  /**
   * The stored ref with its size and line count; an owed output is written first.
   * @throws StoreError (`CTXKIT_STORE_ERROR`) when that write fails
   */
  async ref(refId: unknown): Promise<ToolOutputRef> {
    // Checked before it reaches the store: anything else (a path, `..`, another session's key) is unknown.
    if (!isToolOutputRefId(refId))
      throw new ToolOutputRefNotFoundError(typeof refId === 'string' ? refId.slice(0, 200) : String(refId));
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

  /** Bytes of the rows of one read or grep answer: room is left for its header and closing note. */
  private get answerBudget(): number {
    return Math.max(1024, this.options.maxMessageBytes - 512);
  }

  /**
   * `tool_output_cache`: `limit` numbered lines from line `offset` (1-based), that line from UTF-16 unit `charOffset`,
   * within `maxMessageBytes`, saying where to continue. Read on through every cut, the rows joined by `\n` are the
   * output byte for byte (plus a final `\n` when the header's byte size counts one more).
   */
  async read(refId: unknown, options: { offset?: number; limit?: number; charOffset?: number } = {}): Promise<string> {
    const ref = await this.ref(refId);
    const offset = clampedInteger(options.offset ?? 1, 1);
    const limit = clampedInteger(options.limit ?? READ_DEFAULT_LIMIT, 1);
    const skip = { line: offset, chars: clampedInteger(options.charOffset ?? 0, 0) };
    const maxLine = this.options.maxLineLength;
    const rows: string[] = [];
    let used = 0;
    let stopped = false;
    let firstFrom = 0;
    for await (const line of streamLines(this.options.store.readBlob(this.key(ref.id)), maxLine + 1, skip)) {
      if (line.number < offset) continue;
      if (line.number === offset) firstFrom = line.from;
      const row = `${String(line.number).padStart(6, ' ')}\t${shownPart(line.text, line.from, line, maxLine)}`;
      const rowBytes = utf8ByteLength(row) + 1;
      if (line.number >= offset + limit || (used + rowBytes > this.answerBudget && rows.length > 0)) {
        stopped = true;
        break;
      }
      rows.push(row);
      used += rowBytes;
    }
    const head = `[tool_output_cache ref=${ref.id}: `;
    const total = ref.line_count ?? '?';
    if (rows.length === 0)
      return `${head}no lines from ${offset} (the output has ${total} lines, ${ref.byte_size} bytes)]`;
    const last = offset + rows.length - 1;
    const from = firstFrom > 0 ? `, line ${offset} from char ${firstFrom}` : '';
    const more = stopped || last < (ref.line_count ?? 0) ? `\n[more: continue with offset=${last + 1}]` : '';
    return [`${head}lines ${offset}-${last} of ${total}, ${ref.byte_size} bytes${from}]`, ...rows].join('\n') + more;
  }

  /**
   * `tool_output_cache_grep`: the lines matching `pattern` (a JavaScript regex; an invalid one is plain text) as `N:`
   * rows, `context` lines (0-10) around as `N-` rows, `--` between groups, at most `maxMatches` (1-200, default 50).
   */
  async grep(
    refId: unknown,
    options: { pattern: string; context?: number; maxMatches?: number; ignoreCase?: boolean },
  ): Promise<string> {
    const ref = await this.ref(refId);
    const context = clampedInteger(options.context ?? 0, 0, GREP_MAX_CONTEXT);
    const maxMatches = clampedInteger(options.maxMatches ?? GREP_DEFAULT_MAX_MATCHES, 1, GREP_MAX_MATCHES);
    const pattern = String(options.pattern ?? '').slice(0, GREP_MAX_PATTERN_LENGTH);
    const regex = compilePattern(pattern, options.ignoreCase === true);
    const maxLine = this.options.maxLineLength;
    const show = (line: StreamedLine, match: RegExpExecArray | null): string => {
      if (line.length <= maxLine && line.text.length === line.length) return line.text;
      const at = match ? Math.max(0, match.index - Math.floor(maxLine / 4)) : 0;
      return `${at > 0 ? `[… ${at} chars] ` : ''}${shownPart(line.text.slice(at), at, line, maxLine)}`;
    };
    const before: StreamedLine[] = [];
    const rows: string[] = [];
    let used = 0;
    let matches = 0;
    let after = 0;
    let lastPrinted = 0;
    let truncated = false;
    let scanned = 0;
    const push = (row: string): boolean => {
      const bytes = utf8ByteLength(row) + 1;
      truncated = used + bytes > this.answerBudget;
      if (truncated) return false;
      rows.push(row);
      used += bytes;
      return true;
    };
    for await (const line of streamLines(this.options.store.readBlob(this.key(ref.id)), GREP_LINE_SEARCH_CHARS)) {
      scanned = line.number;
      const match = matches < maxMatches ? regex.exec(line.text) : null;
      if (match) {
        const group = before.map((previous) => `${previous.number}-${show(previous, null)}`);
        if (lastPrinted > 0 && (before[0]?.number ?? line.number) > lastPrinted + 1) group.unshift('--');
        if (![...group, `${line.number}:${show(line, match)}`].every(push)) break;
        before.length = 0;
        lastPrinted = line.number;
        matches++;
        after = context;
      } else if (after > 0) {
        if (!push(`${line.number}-${show(line, null)}`)) break;
        lastPrinted = line.number;
        after--;
      } else if (matches >= maxMatches) {
        truncated = true;
        break;
      } else if (context > 0) {
        before.push({ ...line, text: line.text.slice(0, maxLine * 2) });
        if (before.length > context) before.shift();
      }
    }
    const stop = truncated
      ? ` (stopped at line ${scanned}; more may follow: narrow the pattern or read with tool_output_cache)`
      : '';
    const found = `${matches} match${matches === 1 ? '' : 'es'}${stop} in ${ref.line_count ?? '?'} lines`;
    return [`[tool_output_cache_grep ref=${ref.id} pattern=${JSON.stringify(pattern)}: ${found}]`, ...rows].join('\n');
  }

  /** Deletes a cached output (one still owed is not written). */
  async delete(refId: string): Promise<boolean> {
    if (!isToolOutputRefId(refId)) return false;
    const owed = this.pending.get(refId);
    this.pending.delete(refId);
    await owed?.writing?.catch(() => undefined);
    if (this.storedIds) (await this.storedIds).delete(refId);
    await this.options.store.delete(this.key(refId + META_SUFFIX)).catch(() => false);
    return (await this.options.store.deleteBlob(this.key(refId))) || owed !== undefined;
  }

  /** Every ref id stored for this session; owed outputs are written first (a failed one stays owed). */
  async list(): Promise<string[]> {
    for (const refId of [...this.pending.keys()]) await this.settle(refId).catch(() => undefined);
    return this.listStored();
  }

  /** Deletes every stored or owed output (dropped unwritten) whose id is not in `keep`; returns their ids. */
  async collect(keep: ReadonlySet<string>): Promise<string[]> {
    const collected: string[] = [];
    for (const id of new Set([...(await this.listStored()), ...this.pending.keys()]))
      if (!keep.has(id) && (await this.delete(id))) collected.push(id);
    return collected;
  }
}

/** What a read or grep shows of a line from char `start` (`text`): `maxLine` chars, then how to read on if longer. */
function shownPart(text: string, start: number, line: { number: number; length: number }, maxLine: number): string {
  const shown = text.slice(0, surrogateSafeCut(text, maxLine));
  const next = start + shown.length;
  if (next >= line.length) return shown;
  const readOn = `read on with offset=${line.number} char_offset=${next}`;
  return `${shown} [… line cut at char ${next} of ${line.length}: ${readOn}]`;
}

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
