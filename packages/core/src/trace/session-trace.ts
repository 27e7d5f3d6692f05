import type { ChatMessage } from '../contracts/chat-message';
import type { IContextStore, StoreKey } from '../contracts/context-store';
import type { LLMPayload } from '../contracts/llm-payload';
import { CtxkitError } from '../errors/ctxkit-error';
import { ErrorCodes } from '../errors/error-codes';
import { sessionTraceEntry, type SessionTraceEntry } from './session-trace-entry';

/** The size a session trace is kept within when `sessionTrace: true` names none: 256 KiB. */
export const DEFAULT_SESSION_TRACE_MAX_BYTES = 262_144;

/** The smallest `maxBytes` accepted: room for the trace's header and a few entries. */
export const MIN_SESSION_TRACE_MAX_BYTES = 1_024;

/** Options of the session trace (`sessionTrace` of `createContextRuntime` and `loadAgent`). */
export interface SessionTraceOptions {
  /**
   * Upper bound, in bytes of its JSON, of the trace stored per session: the oldest composes are left
   * out when a new one would exceed it. At least 1,024.
   * @default 262144 (256 KiB)
   */
  maxBytes?: number;
}

/** `sessionTrace` as the runtime and `loadAgent` take it: off (the default), on with the default size, or on with options. */
export type SessionTraceSetting = boolean | SessionTraceOptions;

/** A session's trace as stored (kind `state`, name `session-trace`). */
export interface SessionTrace {
  format: 1;
  agentId: string;
  sessionId: string;
  /** The plugin id of the strategy that composed. */
  strategyId: string;
  /** The bound the trace was kept within. */
  maxBytes: number;
  /** Oldest composes left out to stay within `maxBytes`. */
  evicted: number;
  /** One entry per compose, oldest first. */
  entries: SessionTraceEntry[];
}

/** The store key of a session's trace. */
export function sessionTraceKey(agentId: string, sessionId: string): StoreKey {
  return { agentId, sessionId, kind: 'state', name: 'session-trace' };
}

/**
 * The trace's size bound from a `sessionTrace` setting, or `undefined` when the trace is off.
 * @throws CtxkitError (`CTXKIT_CONFIG_INVALID`) for a `maxBytes` that is not a whole number of at least 1,024
 */
export function sessionTraceMaxBytes(setting: SessionTraceSetting | undefined): number | undefined {
  if (setting === undefined || setting === false) return undefined;
  if (setting === true) return DEFAULT_SESSION_TRACE_MAX_BYTES;
  const maxBytes = setting.maxBytes ?? DEFAULT_SESSION_TRACE_MAX_BYTES;
  if (!Number.isInteger(maxBytes) || maxBytes < MIN_SESSION_TRACE_MAX_BYTES) {
    throw new CtxkitError({
      code: ErrorCodes.CONFIG_INVALID,
      category: 'user',
      message: `sessionTrace.maxBytes must be a whole number of at least ${MIN_SESSION_TRACE_MAX_BYTES}, got ${String(maxBytes)}.`,
      fix: `Pass sessionTrace: true for ${DEFAULT_SESSION_TRACE_MAX_BYTES} bytes, or sessionTrace: { maxBytes: 65536 }.`,
      details: { option: 'sessionTrace.maxBytes', value: maxBytes },
    });
  }
  return maxBytes;
}

/** What a {@link SessionTraceRecorder} writes and where. */
export interface SessionTraceRecorderOptions {
  store: IContextStore;
  agentId: string;
  sessionId: string;
  strategyId: string;
  maxBytes: number;
  /** The session's clock. @default Date.now */
  now?: () => number;
}

/**
 * One session's trace: a ring of compose entries kept within `maxBytes` of JSON, written to the
 * store after each compose. `record` only builds the ring (no I/O); writes run one at a time in the
 * background and coalesce (a write carries every entry recorded before it started). The trace
 * already stored for the session (an earlier process) is read once, before the first write, and
 * continued. A failed write never fails a compose; the next compose writes again.
 */
export class SessionTraceRecorder {
  private readonly key: StoreKey;
  /** Entries oldest first, each with its JSON size. */
  private ring: Array<{ entry: SessionTraceEntry; bytes: number }> = [];
  /** Bytes of the ring's entries, commas between them included. */
  private entryBytes = 0;
  private evicted = 0;
  /** Bytes of the stored value around its entries (with room for any `evicted` count). */
  private readonly headerBytes: number;
  /** Composes recorded in this process. */
  private recorded = 0;
  /** The number of the last compose stored by an earlier process, once read. */
  private offset: number | undefined;
  private loading: Promise<void> | undefined;
  private writing: Promise<void> | undefined;
  private dirty = false;
  /** The last write's failure, if the last write failed. */
  lastError: unknown;

  constructor(private readonly options: SessionTraceRecorderOptions) {
    this.key = sessionTraceKey(options.agentId, options.sessionId);
    this.headerBytes = jsonBytes(this.snapshotWith([], Number.MAX_SAFE_INTEGER));
  }

  /** The next compose's number (from 1, continuing the stored trace once it was read). */
  nextCall(): number {
    return (this.offset ?? 0) + this.recorded + 1;
  }

  /** Records one compose: its history, the payload it gave, the history indexes of the pinned messages shown. Synchronous; never throws. */
  recordCompose(history: ReadonlyArray<ChatMessage>, payload: LLMPayload, pinnedIndexes?: readonly number[]): void {
    try {
      this.record(sessionTraceEntry(this.nextCall(), (this.options.now ?? Date.now)(), history, payload, pinnedIndexes));
    } catch (error) {
      // The trace never breaks a compose.
      this.lastError = error;
    }
  }

  /** Adds one compose's entry to the ring and schedules a write. Synchronous. */
  record(entry: SessionTraceEntry): void {
    this.recorded++;
    this.push(entry);
    this.dirty = true;
    this.writing ??= this.writeLoop();
  }

  /** The trace as it will be stored. */
  snapshot(): SessionTrace {
    return this.snapshotWith(
      this.ring.map((item) => item.entry),
      this.evicted,
    );
  }

  /** Resolves once every entry recorded so far is written (or its write failed: see `lastError`). */
  async flushed(): Promise<void> {
    while (this.writing !== undefined) await this.writing;
  }

  private push(entry: SessionTraceEntry): void {
    const bytes = jsonBytes(entry);
    this.ring.push({ entry, bytes });
    this.entryBytes += bytes + (this.ring.length > 1 ? 1 : 0);
    while (this.ring.length > 0 && this.headerBytes + this.entryBytes > this.options.maxBytes) {
      const oldest = this.ring.shift()!;
      this.entryBytes -= oldest.bytes + (this.ring.length > 0 ? 1 : 0);
      this.evicted++;
    }
  }

  private snapshotWith(entries: SessionTraceEntry[], evicted: number): SessionTrace {
    const { agentId, sessionId, strategyId, maxBytes } = this.options;
    return { format: 1, agentId, sessionId, strategyId, maxBytes, evicted, entries };
  }

  private async writeLoop(): Promise<void> {
    try {
      this.loading ??= this.load();
      await this.loading;
      while (this.dirty) {
        this.dirty = false;
        try {
          await this.options.store.set(this.key, this.snapshot());
          this.lastError = undefined;
        } catch (error) {
          this.lastError = error;
        }
      }
    } finally {
      this.writing = undefined;
    }
  }

  /** Reads the trace an earlier process stored for this session and puts it before this process's entries, renumbered after it. */
  private async load(): Promise<void> {
    let stored: unknown;
    try {
      stored = await this.options.store.get(this.key);
    } catch (error) {
      this.lastError = error;
    }
    const earlier = isSessionTrace(stored) ? stored : undefined;
    const last = earlier?.entries[earlier.entries.length - 1]?.call ?? 0;
    this.offset = last;
    const mine = this.ring;
    const evicted = this.evicted;
    this.ring = [];
    this.entryBytes = 0;
    this.evicted = earlier?.evicted ?? 0;
    for (const entry of earlier?.entries ?? []) this.push(entry);
    for (const item of mine) {
      item.entry.call += last;
      this.push(item.entry);
    }
    this.evicted += evicted;
  }
}

/** True for a value shaped as a stored {@link SessionTrace}. */
export function isSessionTrace(value: unknown): value is SessionTrace {
  const trace = value as Partial<SessionTrace> | null | undefined;
  return (
    typeof trace === 'object' &&
    trace !== null &&
    trace.format === 1 &&
    typeof trace.agentId === 'string' &&
    typeof trace.sessionId === 'string' &&
    typeof trace.evicted === 'number' &&
    Array.isArray(trace.entries) &&
    trace.entries.every((entry) => typeof entry?.call === 'number' && typeof entry.history === 'number' && Array.isArray(entry.reductions))
  );
}

function jsonBytes(value: unknown): number {
  return Buffer.byteLength(JSON.stringify(value), 'utf8');
}
