import * as fs from 'node:fs';

import { CtxkitError, ErrorCodes } from '@ctxkit/core';

import type { MessageShape } from './message-shape';
import { recordFromJson } from './record-from-json';
import type { TranscriptRecord } from './transcript-record';
import { transcriptValues } from './transcript-values';

/** A conversation of a transcript left out: its line and the typed error saying why and the fix. */
export interface SkippedRecord {
  file: string;
  line: number;
  error: CtxkitError;
}

/** How {@link readTranscript} reads a transcript. */
export interface ReadTranscriptOptions {
  /** Only the conversation with this id. */
  conversation?: string;
  /** At most this many conversations. */
  limit?: number;
  /** The message shape of every conversation. @default detected per conversation */
  format?: MessageShape;
  /**
   * Called for each conversation that cannot be read, which is then left out and reading goes on.
   * Without it, the first such conversation is thrown.
   */
  onSkip?: (skipped: SkippedRecord) => void;
}

/**
 * Reads a transcript: one conversation per line (JSONL) or the whole file as one JSON document.
 * Each conversation is a record (`{"id", "messages", ...}`), a plain `{"messages": [...]}` or a bare
 * array of messages, in the OpenAI chat, AI SDK, LangChain, Anthropic Messages, OpenAI Responses or
 * OpenAI Agents SDK shape (see {@link recordFromJson}); `messages[0]` of each record read is the
 * system prompt. A line that cannot be read is a typed error naming the file, the line, the shape
 * expected and the fix: given to `onSkip` (and left out) or thrown. When no conversation could be
 * read at all, the first line's error is thrown.
 * @throws CtxkitError `CTXKIT_HISTORY_INVALID`
 */
export async function readTranscript(file: string, options: ReadTranscriptOptions = {}): Promise<TranscriptRecord[]> {
  if (!fs.existsSync(file)) {
    throw new CtxkitError({
      code: ErrorCodes.MANIFEST_NOT_FOUND,
      category: 'user',
      message: `Transcript ${file} does not exist.`,
      fix: 'Pass a JSONL file with one {"messages": [...]} conversation per line, or a JSON file holding one.',
      details: { file },
    });
  }
  const records: TranscriptRecord[] = [];
  let firstSkipped: CtxkitError | undefined;
  const skip = (line: number, error: CtxkitError): void => {
    if (!options.onSkip) throw error;
    firstSkipped ??= error;
    options.onSkip({ file, line, error });
  };
  for await (const read of transcriptValues(file)) {
    if ('error' in read) {
      skip(read.line, read.error);
      continue;
    }
    let record: TranscriptRecord;
    try {
      record = recordFromJson(read.value, { file, line: read.line }, options.format);
    } catch (error) {
      if (!CtxkitError.isInstance(error)) throw error;
      skip(read.line, error);
      continue;
    }
    if (options.conversation && record.id !== options.conversation) continue;
    records.push(record);
    if (options.limit && records.length >= options.limit) break;
  }
  if (records.length === 0 && firstSkipped) throw firstSkipped;
  if (options.conversation && records.length === 0) {
    throw new CtxkitError({
      code: ErrorCodes.HISTORY_INVALID,
      category: 'user',
      message: `No conversation with id "${options.conversation}" in ${file}.`,
      fix:
        'Use an id exactly as it appears in the transcript\'s "id" fields (a conversation without one is named ' +
        'after the file and its line, such as "my-chat:3").',
      details: { file, conversation: options.conversation },
    });
  }
  return records;
}
