import { createHash } from 'node:crypto';

import type { ChatMessage } from '../contracts/chat-message';
import type { IContextStore, StoreKey } from '../contracts/context-store';
import type { LLMPayload } from '../contracts/llm-payload';
import { CtxkitError } from '../errors/ctxkit-error';
import { ErrorCodes } from '../errors/error-codes';
import { encodeStoreKeyPart, MAX_ENCODED_STORE_KEY_PART } from '../stores/store-key-part-encoding';
import { type SessionTraceEntry, sessionTraceEntry } from './session-trace-entry';
import { lastCall, orderSegments, readSegment } from './trace-segment';

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

/**
 * `sessionTrace` as the runtime and `loadAgent` take it: off (the default), on with the default size, or on with
 * options.
 */
export type SessionTraceSetting = boolean | SessionTraceOptions;

/** A session's trace as read back: its header and its entries, oldest first. */
export interface SessionTrace {
  format: 1;
  agentId: string;
  sessionId: string;
  /** The plugin id of the strategy that composed. */
  strategyId: string;
  /** The bound the trace is kept within. */
  maxBytes: number;
  /** Oldest composes left out to stay within `maxBytes` (the composes before the first entry). */
  evicted: number;
  /** One entry per compose, oldest first. */
  entries: SessionTraceEntry[];
}

/**
 * The first line of each of a session trace's two segments (blobs of kind `state`, see
 * {@link sessionTraceSegmentKey}; one JSON entry a line after it): whose trace it is and its bound.
 */
export interface SessionTraceHeader {
  format: 1;
  agentId: string;
  sessionId: string;
  strategyId: string;
  maxBytes: number;
}

/**
 * The session id under which an agent's session traces are kept: every traced session of an agent has its two
 * segments there, so that tracing a new session creates two blobs and no session's own place in the store (on the
 * file store, a file and no directory; creating a session's directories cost more than the rest of a short
 * session's trace).
 */
export const SESSION_TRACES_ID = 'session-traces';

/**
 * The store key of one of a session trace's two segments: kind `state` under the agent's
 * {@link SESSION_TRACES_ID}, named `<sessionId>.<segment>.jsonl` (a session id too long for a key's name is named
 * by its SHA-256 instead; the segment's header line holds it whole).
 */
export function sessionTraceSegmentKey(agentId: string, sessionId: string, segment: 0 | 1): StoreKey {
  const suffix = `.${segment}.jsonl`;
  const named = encodeStoreKeyPart(sessionId).length + suffix.length <= MAX_ENCODED_STORE_KEY_PART;
  const stem = named ? sessionId : createHash('sha256').update(sessionId, 'utf8').digest('hex');
  return { agentId, sessionId: SESSION_TRACES_ID, kind: 'state', name: `${stem}${suffix}` };
}

/** The session id in a segment's blob name, or `undefined` for a name that is not a segment's. */
export function sessionTraceBlobStem(name: string): string | undefined {
  return /^(.+)\.[01]\.jsonl$/s.exec(name)?.[1];
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
      message:
        `sessionTrace.maxBytes must be a whole number of at least ${MIN_SESSION_TRACE_MAX_BYTES}, ` +
        `got ${String(maxBytes)}.`,
      fix:
        `Pass sessionTrace: true for ${DEFAULT_SESSION_TRACE_MAX_BYTES} bytes, or sessionTrace: { maxBytes: ` +
        `65536 }.`,
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
 * One session's trace, written to the store as JSON lines appended to one of two segments, each
 * starting with the trace's header line: when the current segment would pass half of `maxBytes`, the
 * other one is emptied and takes the next entries, so the oldest composes go first and both segments
 * together stay within `maxBytes`. Each compose costs one entry and one append, whatever the trace's size.
 *
 * `recordCompose` only builds the entry (no I/O, no serialization); writes run one at a time in the
 * background and batch what was recorded meanwhile. A trace stored for the session by an earlier
 * process is continued (read once, before the first write). A failed write never fails a compose.
 */
export class SessionTraceRecorder {
  private readonly headerLine: string;
  /** Bytes a segment may hold, its header line included. */
  private readonly segmentBytes: number;
  private pending: SessionTraceEntry[] = [];
  /** Composes recorded in this process. */
  private recorded = 0;
  /** The number of the last compose stored by an earlier process, once read. */
  private offset = 0;
  private segment: 0 | 1 = 0;
  /** Bytes in the current segment, once read. */
  private currentBytes = 0;
  private loaded = false;
  private writing: Promise<void> | undefined;
  /** The last write's failure, if the last write failed. */
  lastError: unknown;

  constructor(private readonly options: SessionTraceRecorderOptions) {
    const { agentId, sessionId, strategyId, maxBytes } = options;
    const header: SessionTraceHeader = { format: 1, agentId, sessionId, strategyId, maxBytes };
    this.headerLine = `${JSON.stringify(header)}\n`;
    this.segmentBytes = Math.floor(maxBytes / 2);
  }

  /**
   * Records one compose: its history, the payload it gave, the history indexes of the pinned messages shown.
   * Synchronous; never throws.
   */
  recordCompose(history: ReadonlyArray<ChatMessage>, payload: LLMPayload, pinnedIndexes?: readonly number[]): void {
    try {
      this.recorded++;
      // Numbered from this process's first compose; renumbered after the stored trace once it is read.
      this.pending.push(
        sessionTraceEntry(this.recorded, (this.options.now ?? Date.now)(), history, payload, pinnedIndexes),
      );
      this.writing ??= this.writeLoop();
    } catch (error) {
      // The trace never breaks a compose.
      this.lastError = error;
    }
  }

  /** Resolves once every entry recorded so far is written (or its write failed: see `lastError`). */
  async flushed(): Promise<void> {
    while (this.writing !== undefined) await this.writing;
  }

  private key(segment: 0 | 1): StoreKey {
    return sessionTraceSegmentKey(this.options.agentId, this.options.sessionId, segment);
  }

  private async writeLoop(): Promise<void> {
    const { store } = this.options;
    const headerBytes = Buffer.byteLength(this.headerLine, 'utf8');
    try {
      if (!this.loaded) {
        await this.load();
        this.loaded = true;
      }
      while (this.pending.length > 0) {
        const batch = this.pending;
        this.pending = [];
        let lines = '';
        for (const entry of batch) {
          entry.call += this.offset;
          const line = `${JSON.stringify(entry)}\n`;
          const bytes = Buffer.byteLength(line, 'utf8');
          if (headerBytes + bytes > this.segmentBytes) continue; // an entry larger than a segment is left out
          if (this.currentBytes + bytes > this.segmentBytes) {
            if (lines !== '') await store.appendBlob(this.key(this.segment), lines);
            lines = '';
            this.segment = this.segment === 0 ? 1 : 0;
            await store.deleteBlob(this.key(this.segment));
            this.currentBytes = 0;
          }
          if (this.currentBytes === 0) {
            lines += this.headerLine;
            this.currentBytes = headerBytes;
          }
          lines += line;
          this.currentBytes += bytes;
        }
        if (lines !== '') await store.appendBlob(this.key(this.segment), lines);
      }
      this.lastError = undefined;
    } catch (error) {
      this.lastError = error;
      this.pending = [];
    } finally {
      this.writing = undefined;
    }
  }

  /**
   * Reads where an earlier process left the session's trace: the current segment, its size, the last compose's number.
   */
  private async load(): Promise<void> {
    const { store } = this.options;
    const [first, second] = await Promise.all([readSegment(store, this.key(0)), readSegment(store, this.key(1))]);
    const [older, newer] = orderSegments(first, second);
    this.segment = newer === second ? 1 : 0;
    this.offset = lastCall(newer) ?? lastCall(older) ?? 0;
    this.currentBytes = newer.bytes;
    if (newer.bytes > this.segmentBytes || older.bytes > this.segmentBytes) {
      // Written with a larger bound: start both segments again, keeping the numbering.
      for (const segment of [0, 1] as const) await store.deleteBlob(this.key(segment));
      this.segment = 0;
      this.currentBytes = 0;
    }
  }
}
