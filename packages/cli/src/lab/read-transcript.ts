import * as fs from 'node:fs';
import * as readline from 'node:readline';
import { CtxkitError, ErrorCodes } from '@ctxkit/core';
import type { TranscriptRecord } from './transcript-record';

/**
 * Reads a JSONL transcript (one conversation per line). Each record needs `id` and `messages`
 * whose first message is the system prompt. A bad line is a typed error naming the file and line.
 * @throws CtxkitError `CTXKIT_HISTORY_INVALID`
 */
export async function readTranscript(file: string, options: { conversation?: string; limit?: number } = {}): Promise<TranscriptRecord[]> {
  if (!fs.existsSync(file)) {
    throw new CtxkitError({
      code: ErrorCodes.MANIFEST_NOT_FOUND,
      category: 'user',
      message: `Transcript ${file} does not exist.`,
      fix: 'Pass a JSONL file with one {"id", "messages": [...]} record per line.',
      details: { file },
    });
  }
  const records: TranscriptRecord[] = [];
  const lines = readline.createInterface({ input: fs.createReadStream(file, 'utf8'), crlfDelay: Infinity });
  let lineNumber = 0;
  for await (const line of lines) {
    lineNumber++;
    if (!line.trim()) continue;
    let record: TranscriptRecord;
    try {
      record = JSON.parse(line) as TranscriptRecord;
    } catch (error) {
      throw invalid(file, lineNumber, `not JSON (${(error as Error).message})`);
    }
    if (typeof record.id !== 'string' || !Array.isArray(record.messages) || record.messages.length === 0) {
      throw invalid(file, lineNumber, 'a record needs a string "id" and a non-empty "messages" array');
    }
    if (record.messages[0]!.role !== 'system') throw invalid(file, lineNumber, 'messages[0] must be the system prompt');
    if (options.conversation && record.id !== options.conversation) continue;
    records.push(record);
    if (options.limit && records.length >= options.limit) break;
  }
  lines.close();
  if (options.conversation && records.length === 0) {
    throw new CtxkitError({
      code: ErrorCodes.HISTORY_INVALID,
      category: 'user',
      message: `No conversation with id "${options.conversation}" in ${file}.`,
      fix: 'Use an id exactly as it appears in the transcript\'s "id" fields.',
      details: { file, conversation: options.conversation },
    });
  }
  return records;
}

function invalid(file: string, line: number, problem: string): CtxkitError {
  return new CtxkitError({
    code: ErrorCodes.HISTORY_INVALID,
    category: 'user',
    message: `${file}:${line}: ${problem}.`,
    fix: 'Each line must be one JSON record: {"id": "...", "messages": [{"role": "system", ...}, ...]}.',
    details: { file, line, problem },
  });
}
