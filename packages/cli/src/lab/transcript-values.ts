import * as fs from 'node:fs';
import * as readline from 'node:readline';

import type { CtxkitError } from '@ctxkit/core';

import { transcriptError } from './transcript-error';

const JSON_FIX = 'Write one conversation as one JSON value per line (JSONL), or the whole file as one JSON document.';

/** A JSON value of a transcript at its line, or the line that is not JSON and why. */
export type TranscriptValue = { line: number; value: unknown } | { line: number; error: CtxkitError };

function parseDocument(file: string, line: number, lineError: unknown): unknown {
  try {
    return JSON.parse(fs.readFileSync(file, 'utf8').replace(/^\uFEFF/, ''));
  } catch (error) {
    throw transcriptError(
      { file, line },
      `not JSON: neither one value per line (${(lineError as Error).message}) nor one document ` +
        `(${(error as Error).message})`,
      JSON_FIX,
    );
  }
}

/**
 * The JSON values of a transcript with their line numbers, read line by line (JSONL, blank lines
 * skipped); when the first line is not JSON by itself, the whole file is read as one JSON document
 * (a pretty-printed conversation), at the line it starts on. A later line that is not JSON is
 * yielded as its error, and reading goes on.
 * @throws CtxkitError `CTXKIT_HISTORY_INVALID` when the file is neither JSONL nor one JSON document
 */
export async function* transcriptValues(file: string): AsyncGenerator<TranscriptValue> {
  const lines = readline.createInterface({ input: fs.createReadStream(file, 'utf8'), crlfDelay: Infinity });
  let line = 0;
  let first = true;
  try {
    for await (const text of lines) {
      line++;
      if (!text.trim()) continue;
      let value: unknown;
      try {
        value = JSON.parse(first ? text.replace(/^\uFEFF/, '') : text);
      } catch (error) {
        if (first) {
          yield { value: parseDocument(file, line, error), line };
          return;
        }
        yield { line, error: transcriptError({ file, line }, `not JSON (${(error as Error).message})`, JSON_FIX) };
        continue;
      }
      first = false;
      yield { value, line };
    }
  } finally {
    lines.close();
  }
}
