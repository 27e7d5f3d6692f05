import * as fs from 'node:fs';
import * as path from 'node:path';

import type { ChatMessage } from '../contracts/chat-message';
import { CtxkitError } from '../errors/ctxkit-error';
import { ErrorCodes } from '../errors/error-codes';
import { BUNDLED_CONVERSATIONS, type BundledConversationName, type ConversationRecord } from './conversation-record';

/**
 * The folder that holds the bundled conversations (`fixtures/conversations` of `@ctxkit/core`).
 * Resolved relative to this module, so it works from `src/` (tests) and from `dist/` (published).
 */
export function bundledConversationsDir(): string {
  return path.join(__dirname, '..', '..', 'fixtures', 'conversations');
}

function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) {
    return content
      .map((part: unknown) =>
        part && typeof part === 'object' && typeof (part as { text?: unknown }).text === 'string'
          ? (part as { text: string }).text
          : '',
      )
      .join('');
  }
  return '';
}

function invalid(file: string, line: number, problem: string): CtxkitError {
  return new CtxkitError({
    code: ErrorCodes.HISTORY_INVALID,
    category: 'user',
    message: `${path.basename(file)} line ${line}: ${problem}.`,
    fix:
      'Each line must be a JSON object with `id` and `messages`, where messages[0] is the system prompt (see ' +
      'fixtures/conversations/README.md).',
    details: { file: path.basename(file), line, problem },
  });
}

/**
 * Parses JSONL text of conversation records. Each record gets `systemPrompt` and `history`.
 * @throws CtxkitError `CTXKIT_HISTORY_INVALID` for a line that is not a record
 */
export function parseConversations(text: string, file = 'conversations.jsonl'): ConversationRecord[] {
  const records: ConversationRecord[] = [];
  const lines = text.split('\n');
  lines.forEach((line, index) => {
    if (line.trim() === '') return;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      throw invalid(file, index + 1, 'not valid JSON');
    }
    const raw = value as Partial<ConversationRecord> | null;
    if (raw === null || typeof raw !== 'object' || typeof raw.id !== 'string' || !Array.isArray(raw.messages)) {
      throw invalid(file, index + 1, 'a record needs a string `id` and a `messages` array');
    }
    const first = raw.messages[0] as ChatMessage | undefined;
    if (first === undefined || first.role !== 'system') {
      throw invalid(file, index + 1, 'messages[0] must be the system prompt');
    }
    records.push({
      ...(raw as ConversationRecord),
      systemPrompt: textOf(first.content),
      history: raw.messages.slice(1),
    });
  });
  return records;
}

/**
 * Loads a bundled conversation file by name (`tau-bench-airline`, `openhands-multi-swe-bench`), or
 * any JSONL file in the same record format by path. Every call parses afresh: callers own the
 * returned objects.
 * @throws CtxkitError `CTXKIT_HISTORY_INVALID` for an unknown name, a missing file or a bad line
 */
export function loadConversations(nameOrPath: BundledConversationName | string): ConversationRecord[] {
  const isPath = nameOrPath.endsWith('.jsonl') || nameOrPath.includes('/') || nameOrPath.includes('\\');
  if (!isPath && !(BUNDLED_CONVERSATIONS as readonly string[]).includes(nameOrPath)) {
    throw new CtxkitError({
      code: ErrorCodes.HISTORY_INVALID,
      category: 'user',
      message: `No bundled conversation file named "${nameOrPath}".`,
      fix: `Use one of: ${BUNDLED_CONVERSATIONS.join(', ')}, or pass the path of a .jsonl file.`,
      details: { name: nameOrPath, available: [...BUNDLED_CONVERSATIONS] },
    });
  }
  const file = isPath ? path.resolve(nameOrPath) : path.join(bundledConversationsDir(), `${nameOrPath}.jsonl`);
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (cause) {
    throw new CtxkitError({
      code: ErrorCodes.HISTORY_INVALID,
      category: 'user',
      message: `Cannot read conversation file ${path.basename(file)}.`,
      fix: 'Check the path; bundled files live in fixtures/conversations of @ctxkit/core.',
      details: { file: path.basename(file) },
      cause,
    });
  }
  return parseConversations(text, file);
}
