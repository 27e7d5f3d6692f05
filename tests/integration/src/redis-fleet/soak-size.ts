/**
 * The size of the Redis soak: bounded by default (what CI runs in `npm run test:conformance`), the
 * full soak with `CTXKIT_SOAK=full`, and each figure on its own through its variable.
 */
export interface SoakSize {
  /** Worker processes on the redis-server. */
  processes: number;
  /** Sessions served at once (each goes through tau-bench conversations one after another). */
  sessions: number;
  /** How long turns are started, in seconds. */
  seconds: number;
  /** Mean time between two `kill -9`s of a random process, in ms. */
  killEveryMs: number;
}

export const BOUNDED_SOAK: SoakSize = { processes: 4, sessions: 20, seconds: 30, killEveryMs: 3_000 };
export const FULL_SOAK: SoakSize = { processes: 8, sessions: 200, seconds: 300, killEveryMs: 5_000 };

function positive(name: string, fallback: number, env: NodeJS.ProcessEnv): number {
  const text = env[name];
  if (text === undefined || text === '') return fallback;
  const value = Number(text);
  if (!Number.isFinite(value) || value <= 0)
    throw new Error(`${name}=${text} is not a positive number: set it to one, or unset it for ${fallback}`);
  return value;
}

/**
 * `CTXKIT_SOAK=full` for the full soak; `CTXKIT_SOAK_PROCESSES`, `_SESSIONS`, `_SECONDS`, `_KILL_EVERY_MS` override a
 * figure.
 */
export function soakSize(env: NodeJS.ProcessEnv = process.env): SoakSize {
  const mode = env.CTXKIT_SOAK ?? '';
  if (mode !== '' && mode !== 'full' && mode !== 'bounded')
    throw new Error(`CTXKIT_SOAK=${mode}: use "full" for the full soak or "bounded" (the default)`);
  const base = mode === 'full' ? FULL_SOAK : BOUNDED_SOAK;
  return {
    processes: Math.round(positive('CTXKIT_SOAK_PROCESSES', base.processes, env)),
    sessions: Math.round(positive('CTXKIT_SOAK_SESSIONS', base.sessions, env)),
    seconds: positive('CTXKIT_SOAK_SECONDS', base.seconds, env),
    killEveryMs: positive('CTXKIT_SOAK_KILL_EVERY_MS', base.killEveryMs, env),
  };
}

/** The p-th percentile (0-100) by nearest rank; 0 for no values. */
export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;
}
