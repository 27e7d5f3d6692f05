import type { IContextStore } from '../contracts/context-store';
import { SessionTraceError } from '../errors/session-trace-error';
import { SESSION_TRACES_ID, type SessionTrace, sessionTraceBlobStem, sessionTraceSegmentKey } from './session-trace';
import { orderSegments, readSegment, type TraceSegment } from './trace-segment';

const TURN_ON =
  'Turn the trace on with sessionTrace: true (or { maxBytes }) in createContextRuntime or loadAgent options; it is ' +
  'off by default.';

/**
 * Reads a session's trace from a store: its two segments, older first.
 * @throws SessionTraceError (`CTXKIT_TRACE_UNREADABLE`) when the store holds none for that agent and
 *   session (naming the sessions of the agent that have one), when what is stored there is not a
 *   trace, or when the store cannot be read (the store's error as cause)
 */
export async function readSessionTrace(
  store: IContextStore,
  agentId: string,
  sessionId: string,
): Promise<SessionTrace> {
  let segments: TraceSegment[];
  try {
    segments = await Promise.all(
      [0, 1].map((segment) => readSegment(store, sessionTraceSegmentKey(agentId, sessionId, segment as 0 | 1))),
    );
  } catch (error) {
    throw new SessionTraceError(
      `the ${store.name} store could not be read (${(error as Error | null)?.message ?? String(error)})`,
      'Check that the store is reachable and that --store names the store the agent writes to.',
      { store: store.name, agentId, sessionId },
      error,
    );
  }
  const [older, newer] = orderSegments(segments[0]!, segments[1]!);
  if (older.bytes === 0 && newer.bytes === 0) {
    const traced = await tracedSessions(store, agentId);
    throw new SessionTraceError(
      `the ${store.name} store has no trace for agent "${agentId}", session "${sessionId}"`,
      traced.length > 0
        ? `Sessions of agent "${agentId}" with a ` +
            `trace: ${traced.slice(0, 20).join(', ')}${traced.length > 20 ? ', ...' : ''}.`
        : TURN_ON,
      { store: store.name, agentId, sessionId, traced },
    );
  }
  const header = newer.header ?? older.header;
  if (header === undefined) {
    throw new SessionTraceError(
      `what is stored for agent "${agentId}", session "${sessionId}" under the trace's names is not a session trace`,
      `Let ctxkit write the trace (kind "state" of session "${SESSION_TRACES_ID}", blobs named after the session); ` +
        'do not write those keys yourself.',
      { store: store.name, agentId, sessionId },
    );
  }
  const entries = [...older.entries, ...newer.entries];
  return {
    format: 1,
    agentId,
    sessionId,
    strategyId: header.strategyId,
    maxBytes: header.maxBytes,
    evicted: Math.max(0, (entries[0]?.call ?? 1) - 1),
    entries,
  };
}

/** The sessions of an agent that have a trace in the store (none when the store cannot list). */
async function tracedSessions(store: IContextStore, agentId: string): Promise<string[]> {
  try {
    const keys = await store.listBlobs({ agentId, sessionId: SESSION_TRACES_ID, kind: 'state' });
    const sessions = new Set<string>();
    for (const key of keys) {
      const stem = sessionTraceBlobStem(key.name);
      if (stem === undefined) continue;
      // A name that is a SHA-256 may stand for a session id too long for a name: its header says.
      sessions.add(/^[0-9a-f]{64}$/.test(stem) ? ((await readSegment(store, key)).header?.sessionId ?? stem) : stem);
    }
    return [...sessions].sort();
  } catch {
    return [];
  }
}
