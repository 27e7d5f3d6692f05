import * as fs from 'node:fs';
import * as path from 'node:path';

/** The directory of the real conversations bundled with `@ctxkit/core` (MIT, with attribution). */
export function bundledConversationsDir(): string {
  return path.join(path.dirname(require.resolve('@ctxkit/core/package.json')), 'fixtures', 'conversations');
}

/** The bundled transcripts the main job replays: tau-bench airline and OpenHands. */
export function bundledTranscripts(): string[] {
  const dir = bundledConversationsDir();
  return ['tau-bench-airline.jsonl', 'openhands-multi-swe-bench.jsonl']
    .map((name) => path.join(dir, name))
    .filter((file) => fs.existsSync(file));
}
