import * as fs from 'node:fs';
import { CtxkitError, ErrorCodes } from '@ctxkit/core';
import { recordFromJson } from './record-from-json';
import type { TranscriptRecord } from './transcript-record';
import { transcriptValues } from './transcript-values';

/**
 * Reads a transcript: one conversation per line (JSONL) or the whole file as one JSON document.
 * Each conversation is a record (`{"id", "messages", ...}`), a plain `{"messages": [...]}` or a bare
 * array of messages, in the OpenAI chat, AI SDK, LangChain, Anthropic Messages or OpenAI Responses
 * shape (see {@link recordFromJson}); `messages[0]` of each record read is the system prompt. A bad
 * line is a typed error naming the file, the line, the shape expected and the fix.
 * @throws CtxkitError `CTXKIT_HISTORY_INVALID`
 */
export async function readTranscript(file: string, options: { conversation?: string; limit?: number } = {}): Promise<TranscriptRecord[]> {
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
  for await (const { value, line } of transcriptValues(file)) {
    const record = recordFromJson(value, { file, line });
    if (options.conversation && record.id !== options.conversation) continue;
    records.push(record);
    if (options.limit && records.length >= options.limit) break;
  }
  if (options.conversation && records.length === 0) {
    throw new CtxkitError({
      code: ErrorCodes.HISTORY_INVALID,
      category: 'user',
      message: `No conversation with id "${options.conversation}" in ${file}.`,
      fix: 'Use an id exactly as it appears in the transcript\'s "id" fields (a conversation without one is named after the file and its line, such as "my-chat:3").',
      details: { file, conversation: options.conversation },
    });
  }
  return records;
}
