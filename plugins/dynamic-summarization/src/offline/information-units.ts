import { type ChatMessage } from '@ctxkit/core';
import { contentText } from '@ctxkit/core/strategy-kit';

import { annotateRelativeDates } from './relative-dates';
import { readSessionOpening } from './session-date';

/** One candidate line of an extractive summary: a sentence, a tool call, or a slice of a tool result. */
export interface InformationUnit {
  /** The text, verbatim from the source (whitespace collapsed). */
  text: string;
  /**
   * Who said it, shown before the text: the speaker named at the start of the message
   * (`Ana`), else the role (`user`, `assistant`, `tool get_user_details`); empty for lines of
   * a summary written by another summarizer.
   */
  label: string;
  /** Position in the conversation: the history index of its message (earlier summary lines come before any message). */
  order: number;
  /** Secondary order inside one message. */
  position: number;
  role: ChatMessage['role'] | 'summary';
  /** Date of the session it was said in (`9 June, 2023`), when the conversation states one. */
  date?: string;
}

/** Longest text kept for one unit, in characters (the ids in it are kept first). */
export const MAX_UNIT_CHARS = 320;
/** Most elements of a JSON array turned into units. */
const MAX_ARRAY_ELEMENTS = 24;
/** Most leaves of one JSON element. */
const MAX_LEAVES = 40;

const SENTENCE_SPLIT = /(?<=[.!?])\s+(?=[A-Z0-9"'(\[])|(?<=[。！？])\s*|\n+/;
/** A speaker named at the start of a message (`Ana: …`), as multi-party transcripts write it. */
const SPEAKER_PREFIX = /^([A-Z][\p{L}'’.-]*(?: [A-Z][\p{L}'’.-]*){0,2}): (?=\S)/u;
/** Words that open a sentence with a colon without naming a speaker. */
const NOT_SPEAKERS = new Set(
  (
    'Note Notes Sure Yes No Okay Ok Update Question Answer Hi Hello Thanks Error Warning Summary Example Step Result ' +
    'Results Reason Status Total Important Tip Done'
  ).split(' '),
);

function clean(text: string): string {
  return text
    .replace(/\*\*|__|`/g, '')
    .replace(/^\s*(?:[-*•]|\d+\.)\s+/, '')
    .replace(/\s+/g, ' ')
    .trim();
}

function clip(text: string): string {
  if (text.length <= MAX_UNIT_CHARS) return text;
  // Cut at a separator so that no id or number is cut in half.
  const cut = text.lastIndexOf(' ', MAX_UNIT_CHARS - 1);
  return `${text.slice(0, cut > MAX_UNIT_CHARS / 2 ? cut : MAX_UNIT_CHARS - 1)}…`;
}

/** Splits prose into sentences (and list items), dropping fragments without content. */
export function splitSentences(text: string): string[] {
  return text
    .split(SENTENCE_SPLIT)
    .map(clean)
    .filter((sentence) => /[A-Za-z0-9\u3040-\u30ff\u4e00-\u9fff]/.test(sentence) && sentence.length >= 3);
}

/** Sentences longer than this are split into clauses at dashes and semicolons. */
const LONG_SENTENCE_CHARS = 110;
const CLAUSE_SPLIT = /\s+[-–—]\s+|;\s+/;

/** Splits a long sentence into its clauses (at ` - `, ` – `, ` — ` and `; `), so that each can be kept on its own. */
export function splitClauses(sentence: string): string[] {
  if (sentence.length <= LONG_SENTENCE_CHARS) return [sentence];
  return sentence.split(CLAUSE_SPLIT).filter((clause) => clause.length >= 3);
}

function scalarText(value: unknown): string | undefined {
  if (value === null || value === undefined || value === '') return undefined;
  if (typeof value === 'string') return clean(value);
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return undefined;
}

/** Flattens a JSON value into `path: value` leaves, keeping the last two path segments. */
function leaves(value: unknown, path: string[], out: string[]): void {
  if (out.length >= MAX_LEAVES) return;
  const scalar = scalarText(value);
  if (scalar !== undefined) {
    const name = path.slice(-2).join('.');
    out.push(name ? `${name}: ${scalar}` : scalar);
    return;
  }
  if (Array.isArray(value)) {
    value.forEach((item, index) =>
      leaves(
        item,
        path.length === 0 ? [String(index)] : [...path.slice(0, -1), `${path[path.length - 1]}[${index}]`],
        out,
      ),
    );
    return;
  }
  if (value && typeof value === 'object') {
    for (const [key, item] of Object.entries(value as Record<string, unknown>)) leaves(item, [...path, key], out);
  }
}

function jsonUnits(value: unknown): string[] {
  if (Array.isArray(value)) {
    return value.slice(0, MAX_ARRAY_ELEMENTS).map((item) => {
      const out: string[] = [];
      // A list of lists (one-stop flights): flatten each element with its legs.
      leaves(item, [], out);
      return out.join('; ');
    });
  }
  if (value && typeof value === 'object') {
    const scalars: string[] = [];
    const units: string[] = [];
    for (const [key, item] of Object.entries(value as Record<string, unknown>)) {
      if (item !== null && typeof item === 'object') {
        const out: string[] = [];
        leaves(item, [key], out);
        if (out.length > 0) units.push(out.join('; '));
      } else {
        leaves(item, [key], scalars);
      }
    }
    return scalars.length > 0 ? [scalars.join('; '), ...units] : units;
  }
  const scalar = scalarText(value);
  return scalar === undefined ? [] : [scalar];
}

function toolUnits(text: string): string[] {
  const trimmed = text.trim();
  if (trimmed.startsWith('{') || trimmed.startsWith('[')) {
    try {
      return jsonUnits(JSON.parse(trimmed));
    } catch {
      // Not JSON after all: read it as prose.
    }
  }
  return splitSentences(trimmed);
}

function callText(name: string, args: string): string {
  let rendered = args;
  try {
    const out: string[] = [];
    leaves(JSON.parse(args), [], out);
    rendered = out.join(', ');
  } catch {
    // Arguments that are not JSON are shown as sent.
  }
  return clean(`called ${name}(${rendered})`);
}

/** Splits off a speaker named at the start of a message, if any. */
function readSpeaker(text: string): { speaker?: string; rest: string } {
  const match = SPEAKER_PREFIX.exec(text);
  if (!match || NOT_SPEAKERS.has(match[1]!)) return { rest: text };
  return { speaker: match[1]!, rest: text.slice(match[0].length) };
}

/** The units of a batch and the session date in force after it. */
export interface BatchUnits {
  units: InformationUnit[];
  /** The date of the last session opened in the batch, else the date it started with. */
  date?: string;
}

/**
 * Splits a batch of messages into information units: sentences of user and assistant text, one
 * unit per tool call (name and arguments), and for tool results one unit per JSON element (its
 * leaves as `path: value`) or per sentence. Tool results are labelled with the tool that produced
 * them (calls are matched by position within their group, as call ids may repeat).
 *
 * A message that opens a session (`[Session 3 · 6:20 pm on 9 June, 2023]`) sets the date of its
 * units and of the ones after it; `sessionDate` is the date in force before the batch. Relative
 * time expressions ("yesterday", "last week") get their calendar meaning added in brackets. A
 * speaker named at the start of a message (`Ana: …`) labels each of its sentences.
 */
export function messageUnits(
  messages: ReadonlyArray<Readonly<ChatMessage>>,
  firstIndex: number,
  sessionDate?: string,
): BatchUnits {
  const units: InformationUnit[] = [];
  let date = sessionDate;
  let pendingCalls: Array<{ id: string; name: string }> = [];
  messages.forEach((message, offset) => {
    const order = firstIndex + offset;
    let position = 0;
    const push = (text: string, label: string, role: InformationUnit['role']): void => {
      const clipped = clip(role === 'tool' ? text : annotateRelativeDates(text, date));
      if (clipped.length > 0)
        units.push(
          date === undefined
            ? { text: clipped, label, order, position: position++, role }
            : { text: clipped, label, order, position: position++, role, date },
        );
    };
    const prose = (text: string, role: 'system' | 'user' | 'assistant'): void => {
      const opening = readSessionOpening(text);
      if (opening) date = opening.date;
      const { speaker, rest } = readSpeaker(opening ? opening.rest : text);
      for (const sentence of splitSentences(rest))
        for (const clause of splitClauses(sentence)) push(clause, speaker ?? role, role);
    };
    switch (message.role) {
      case 'system':
        // System messages inside history (a host's reminders) are rare; keep them as prose.
        prose(contentText(message.content), 'system');
        break;
      case 'user':
        prose(contentText(message.content), 'user');
        break;
      case 'assistant':
        prose(message.content ?? '', 'assistant');
        pendingCalls = (message.tool_calls ?? []).map((call) => ({ id: call.id, name: call.function.name }));
        for (const call of message.tool_calls ?? [])
          push(callText(call.function.name, call.function.arguments), 'assistant', 'assistant');
        break;
      case 'tool': {
        const at = pendingCalls.findIndex((call) => call.id === message.tool_call_id);
        const name = at === -1 ? 'tool' : pendingCalls.splice(at, 1)[0]!.name;
        for (const text of toolUnits(contentText(message.content))) push(text, `tool ${name}`, 'tool');
        break;
      }
    }
  });
  return date === undefined ? { units } : { units, date };
}
