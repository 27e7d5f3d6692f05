import type { IContextStore, StoreKey } from '../contracts/context-store';
import type { SessionTraceHeader } from './session-trace';
import type { SessionTraceEntry } from './session-trace-entry';

/** One segment as read: its header line, its entries (a line cut short by a crash is skipped), its size. */
export interface TraceSegment {
  header?: SessionTraceHeader;
  entries: SessionTraceEntry[];
  bytes: number;
}

/** The number of the segment's last compose, if it has one. */
export function lastCall(segment: TraceSegment): number | undefined {
  return segment.entries[segment.entries.length - 1]?.call;
}

/** The two segments, older first (the newer one holds the later composes; an empty one is older). */
export function orderSegments(first: TraceSegment, second: TraceSegment): [TraceSegment, TraceSegment] {
  const a = lastCall(first) ?? -1;
  const b = lastCall(second) ?? -1;
  return b > a ? [first, second] : [second, first];
}

/** True for a value shaped as a {@link SessionTraceHeader}. */
export function isSessionTraceHeader(value: unknown): value is SessionTraceHeader {
  const header = value as Partial<SessionTraceHeader> | null | undefined;
  return (
    typeof header === 'object' &&
    header !== null &&
    header.format === 1 &&
    typeof header.agentId === 'string' &&
    typeof header.sessionId === 'string' &&
    typeof header.strategyId === 'string' &&
    typeof header.maxBytes === 'number'
  );
}

/** Reads one segment; empty (0 bytes) when absent. */
export async function readSegment(store: IContextStore, key: StoreKey): Promise<TraceSegment> {
  const size = await store.blobSize(key);
  if (size === undefined || size === 0) return { entries: [], bytes: 0 };
  const chunks: Buffer[] = [];
  for await (const chunk of store.readBlob(key)) chunks.push(Buffer.from(chunk));
  const segment: TraceSegment = { entries: [], bytes: size };
  for (const line of Buffer.concat(chunks).toString('utf8').split('\n')) {
    if (line === '') continue;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      continue;
    }
    if (isSessionTraceHeader(value)) segment.header = value;
    else if (isTraceEntry(value)) segment.entries.push(value);
  }
  return segment;
}

function isTraceEntry(value: unknown): value is SessionTraceEntry {
  const entry = value as Partial<SessionTraceEntry> | null;
  return typeof entry?.call === 'number' && typeof entry.history === 'number' && Array.isArray(entry.reductions);
}
