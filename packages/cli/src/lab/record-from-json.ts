import type { ChatMessage } from '@ctxkit/core';
import { contentText } from '@ctxkit/core/strategy-kit';

import { datasetName } from './dataset-family';
import { MESSAGE_SHAPES, type MessageShape } from './message-shape';
import { transcriptError, type TranscriptPlace } from './transcript-error';
import { transcriptMessages } from './transcript-messages';
import type { TranscriptRecord } from './transcript-record';

const RECORD_FIX =
  'Write one conversation per line (or the whole file as one JSON document) as {"messages": [...]}, optionally with ' +
  '"id", "system" and "tools", ' +
  'or as an array of messages; the messages may be OpenAI chat, AI SDK, LangChain, Anthropic Messages, OpenAI ' +
  'Responses input items or OpenAI Agents SDK items (see docs/11-cli.md).';

const SYSTEM_FIX =
  'Put the system prompt first: a system message in the conversation\'s own shape, or a top-level "system" field ' +
  'next to "messages".';

function described(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value !== 'object') return `a ${typeof value}`;
  const keys = Object.keys(value);
  return keys.length === 0
    ? 'an empty object'
    : `an object with keys ${keys.map((key) => JSON.stringify(key)).join(', ')}`;
}

/** A top-level system prompt: a string, or text blocks (Anthropic). */
function systemMessage(system: unknown, place: TranscriptPlace): ChatMessage[] {
  if (system === undefined || system === null) return [];
  if (typeof system === 'string') return [{ role: 'system', content: system }];
  if (Array.isArray(system)) return [{ role: 'system', content: contentText(system as ChatMessage['content']) }];
  throw transcriptError(place, `"system" is ${described(system)}, not a string or text blocks`, SYSTEM_FIX);
}

/**
 * One conversation of a transcript from its parsed JSON: a record (`{"id", "messages", ...}`), a
 * plain `{"messages": [...]}` (its id: the file name and line, `my-chat:3`), or a bare array of
 * messages; the messages in any shape {@link transcriptMessages} reads (detected, or `format`),
 * after a top-level `"system"` when there is one.
 * @throws CtxkitError `CTXKIT_HISTORY_INVALID` naming the line, the shape expected and the fix
 */
export function recordFromJson(value: unknown, place: TranscriptPlace, format?: MessageShape): TranscriptRecord {
  const fields: Record<string, unknown> = Array.isArray(value)
    ? { messages: value }
    : typeof value === 'object' && value !== null
      ? { ...value }
      : {};
  const { id, messages, system, ...rest } = fields;
  if (!Array.isArray(messages)) {
    throw transcriptError(
      place,
      `expected a conversation: {"id": "...", "messages": [...]}, {"messages": [...]} or an array of messages; ` +
        `got ${described(value)}`,
      RECORD_FIX,
    );
  }
  if (messages.length === 0) throw transcriptError(place, 'the conversation has no messages', RECORD_FIX);
  const read = transcriptMessages(messages, format);
  const { name, example } = MESSAGE_SHAPES[read.shape];
  if ('problem' in read) {
    throw transcriptError(
      place,
      `messages[${read.index}] is not a valid ${name} message: ${read.problem.replace(/\.$/, '')}`,
      `Write each message in the ${name} shape, as in ${example}.`,
      {
        shape: name,
        message: read.index,
      },
    );
  }
  const history = [...systemMessage(system, place), ...read.messages];
  if (history[0]?.role !== 'system')
    throw transcriptError(place, `the conversation (${name}) does not start with a system prompt`, SYSTEM_FIX, {
      shape: name,
    });
  return {
    ...rest,
    id: typeof id === 'string' ? id : `${datasetName(place.file)}:${place.line}`,
    messages: history,
  } as TranscriptRecord;
}
