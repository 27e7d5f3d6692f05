import type { IContextStore } from '../contracts/context-store';
import { SessionTraceError } from '../errors/session-trace-error';
import { isSessionTrace, sessionTraceKey, type SessionTrace } from './session-trace';

const TURN_ON = 'Turn the trace on with sessionTrace: true (or { maxBytes }) in createContextRuntime or loadAgent options; it is off by default.';

/**
 * Reads a session's trace from a store.
 * @throws SessionTraceError (`CTXKIT_TRACE_UNREADABLE`) when the store holds none for that agent and
 *   session (naming the sessions of the agent that have one), when the stored value is not a trace,
 *   or when the store cannot be read (the store's error as cause)
 */
export async function readSessionTrace(store: IContextStore, agentId: string, sessionId: string): Promise<SessionTrace> {
  const key = sessionTraceKey(agentId, sessionId);
  let value: unknown;
  try {
    value = await store.get(key);
  } catch (error) {
    throw new SessionTraceError(
      `the ${store.name} store could not be read (${(error as Error | null)?.message ?? String(error)})`,
      'Check that the store is reachable and that --store names the store the agent writes to.',
      { store: store.name, agentId, sessionId },
      error,
    );
  }
  if (value === undefined) {
    const traced = await tracedSessions(store, agentId);
    throw new SessionTraceError(
      `the ${store.name} store has no trace for agent "${agentId}", session "${sessionId}"`,
      traced.length > 0 ? `Sessions of agent "${agentId}" with a trace: ${traced.slice(0, 20).join(', ')}${traced.length > 20 ? ', ...' : ''}.` : TURN_ON,
      { store: store.name, agentId, sessionId, traced },
    );
  }
  if (!isSessionTrace(value)) {
    throw new SessionTraceError(
      `the value stored for agent "${agentId}", session "${sessionId}" is not a session trace`,
      'Let ctxkit write the trace (kind "state", name "session-trace"); do not write that key yourself.',
      { store: store.name, agentId, sessionId },
    );
  }
  return value;
}

/** The sessions of an agent that have a trace in the store (none when the store cannot list). */
async function tracedSessions(store: IContextStore, agentId: string): Promise<string[]> {
  try {
    const keys = await store.list({ agentId, kind: 'state' });
    return [...new Set(keys.filter((key) => key.name === 'session-trace').map((key) => key.sessionId))].sort();
  } catch {
    return [];
  }
}
