import * as fs from 'node:fs';
import * as path from 'node:path';

import { FileContextStore, type IContextStore, SessionTraceError } from '@ctxkit/core';
import { RedisContextStore } from '@ctxkit/store-redis';

/**
 * The store `--store` names: a `redis://` or `rediss://` URL (the Redis store), or an existing
 * directory (the file store's `rootDir`).
 * @throws SessionTraceError (`CTXKIT_TRACE_UNREADABLE`) for anything else: another URL scheme, a path that is not a
 *   directory
 */
export function openTraceStore(spec: string): IContextStore {
  const scheme = /^([a-z][a-z0-9+.-]*):\/\//i.exec(spec)?.[1]?.toLowerCase();
  if (scheme === 'redis' || scheme === 'rediss') return new RedisContextStore({ url: spec });
  if (scheme !== undefined) {
    throw new SessionTraceError(
      `--store ${scheme}:// is not a store ctxkit explain can read`,
      'Pass the directory of a file store or a redis:// URL; for another store (the in-memory one, PostgreSQL), ' +
        'call readSessionTrace(store, agentId, sessionId) and explainSession(trace, history, text) from ' +
        '@ctxkit/core in the process that owns it.',
      { store: scheme },
    );
  }
  const directory = path.resolve(spec);
  let isDirectory = false;
  try {
    isDirectory = fs.statSync(directory).isDirectory();
  } catch {
    isDirectory = false;
  }
  if (!isDirectory) {
    throw new SessionTraceError(
      `--store ${directory} is not a directory`,
      'Pass the rootDir of the file store the agent writes to, or a redis:// URL.',
      { store: directory },
    );
  }
  return new FileContextStore({ rootDir: directory });
}
