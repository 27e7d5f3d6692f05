import { contentText, type ChatMessage } from '@ctxkit/core';

/** One candidate line of an extractive summary: a sentence, a tool call, or a slice of a tool result. */
export interface InformationUnit {
  /** The text, verbatim from the source (whitespace collapsed). */
  text: string;
  /** Where it came from, shown before the text (`user #3`, `tool get_user_details #6`). */
  label: string;
  /** History index of its message; previous-summary lines keep the index they were given. */
  order: number;
  /** Secondary order inside one message. */
  position: number;
  role: ChatMessage['role'] | 'summary';
}

/** Longest text kept for one unit, in characters (the ids in it are kept first). */
export const MAX_UNIT_CHARS = 320;
/** Most elements of a JSON array turned into units. */
const MAX_ARRAY_ELEMENTS = 24;
/** Most leaves of one JSON element. */
const MAX_LEAVES = 40;

const SENTENCE_SPLIT = /(?<=[.!?])\s+(?=[A-Z0-9"'(\[])|\n+/;

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
    value.forEach((item, index) => leaves(item, path.length === 0 ? [String(index)] : [...path.slice(0, -1), `${path[path.length - 1]}[${index}]`], out));
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

/**
 * Splits a batch of messages into information units: sentences of user and assistant text, one
 * unit per tool call (name and arguments), and for tool results one unit per JSON element (its
 * leaves as `path: value`) or per sentence. Tool results are labelled with the tool that produced
 * them (calls are matched by position within their group, as call ids may repeat).
 */
export function messageUnits(messages: ReadonlyArray<Readonly<ChatMessage>>, firstIndex: number): InformationUnit[] {
  const units: InformationUnit[] = [];
  let pendingCalls: Array<{ id: string; name: string }> = [];
  messages.forEach((message, offset) => {
    const order = firstIndex + offset;
    let position = 0;
    const push = (text: string, label: string, role: InformationUnit['role']): void => {
      const clipped = clip(text);
      if (clipped.length > 0) units.push({ text: clipped, label, order, position: position++, role });
    };
    switch (message.role) {
      case 'system':
        // System messages inside history (a host's reminders) are rare; keep them as prose.
        for (const sentence of splitSentences(contentText(message.content))) push(sentence, `system #${order}`, 'system');
        break;
      case 'user':
        for (const sentence of splitSentences(contentText(message.content))) push(sentence, `user #${order}`, 'user');
        break;
      case 'assistant':
        for (const sentence of splitSentences(message.content ?? '')) push(sentence, `assistant #${order}`, 'assistant');
        pendingCalls = (message.tool_calls ?? []).map((call) => ({ id: call.id, name: call.function.name }));
        for (const call of message.tool_calls ?? []) push(callText(call.function.name, call.function.arguments), `assistant #${order}`, 'assistant');
        break;
      case 'tool': {
        const at = pendingCalls.findIndex((call) => call.id === message.tool_call_id);
        const name = at === -1 ? 'tool' : pendingCalls.splice(at, 1)[0]!.name;
        for (const text of toolUnits(contentText(message.content))) push(text, `tool ${name} #${order}`, 'tool');
        break;
      }
    }
  });
  return units;
}
