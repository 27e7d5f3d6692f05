import { type ChatMessage } from '@ctxkit/core';
import { contentText } from '@ctxkit/core/strategy-kit';

import type { TranscriptRecord } from '../lab/transcript-record';
import type { NeededFact } from './needed-fact';

/** A path-like token: segments of word characters, dots and dashes, with at least one `/` or a file extension. */
const PATH_TOKEN = /(?:\.{0,2}\/)?[\w.-]+(?:\/[\w.-]+)+|[\w-]+\.[A-Za-z]\w{0,9}\b/g;
/** A line of an argument string that reads like an error message. */
const ERROR_WORDS =
  /\b(?:error|fatal|failed|failure|undefined reference|no such file|not found|cannot|segmentation fault|exception)\b/i;
/** Shortest answer kept: shorter strings occur everywhere and prove nothing. */
const MIN_ANSWER = 4;
const MAX_LINE_ANSWER = 120;

/**
 * Facts of a coding agent's run, derived from its own tool calls (no annotation exists): for each
 * assistant tool call, what its arguments name that the agent could only have learnt from an
 * earlier tool output. The fact is needed in the payload composed just before that assistant
 * message, and matched verbatim.
 *
 * - file paths: for each path token of the arguments, the longest trailing part (whole segments)
 *   that occurs in an earlier tool output, e.g. `parser.c` for `/workspace/repo/src/ast/parser.c`
 *   after an `ls` listed `parser.c`;
 * - line numbers: `view_range` and `insert_line` values, and `line <n>` / `:<n>` in argument
 *   strings; the answer is the earlier tool-output line that shows that number as a line number
 *   (`cat -n` view `  <n>\t…`, `grep -n` `<n>:…`, compiler `file:<n>:…`), trimmed; when the call
 *   names a `path`, only outputs about that file count (the path is in the output or its call);
 * - error strings: lines of argument strings that read like an error (error, failed, not found,
 *   ...), trimmed of quotes.
 *
 * Each candidate counts only when the first message holding it is a tool output before the call:
 * not the system prompt, not the task message, not something the agent wrote first. At most one
 * fact per answer per call.
 */
export function toolCallFacts(record: TranscriptRecord): NeededFact[] {
  const texts = record.messages.map((message) => messageContent(message));
  const callOf = callArgumentsOfResults(record.messages);
  const facts: NeededFact[] = [];
  record.messages.forEach((message, index) => {
    if (message.role !== 'assistant' || !message.tool_calls?.length) return;
    const seen = new Set<string>();
    const add = (question: string, answer: string | undefined): void => {
      if (answer === undefined || answer.length < MIN_ANSWER || seen.has(answer)) return;
      const first = firstHolder(texts, answer, index);
      if (first === undefined || record.messages[first]!.role !== 'tool') return;
      seen.add(answer);
      facts.push({ question, answer, neededAt: index, match: 'verbatim', evidence: [first] });
    };
    for (const call of message.tool_calls) {
      const args = parseArguments(call.function.arguments);
      const strings = stringValues(args);
      for (const value of strings) {
        for (const token of value.match(PATH_TOKEN) ?? []) {
          add(`${call.function.name}: path ${token}`, knownPathSuffix(token, texts, index));
        }
        for (const line of value.split('\n')) {
          const trimmed = line
            .trim()
            .replace(/^["'`]+|["'`]+$/g, '')
            .trim();
          if (ERROR_WORDS.test(trimmed)) add(`${call.function.name}: error text`, trimmed);
        }
      }
      const file =
        args && typeof args === 'object' && typeof (args as Record<string, unknown>).path === 'string'
          ? ((args as Record<string, unknown>).path as string)
          : undefined;
      const sameFile = (output: number): boolean =>
        file === undefined || texts[output]!.includes(file) || (callOf.get(output) ?? '').includes(file);
      for (const line of lineNumbers(args, strings)) {
        add(`${call.function.name}: line ${line}`, lineShowing(line, texts, record.messages, index, sameFile));
      }
    }
  });
  return facts;
}

function messageContent(message: ChatMessage): string {
  let text = contentText(message.content);
  if (message.role === 'assistant') for (const call of message.tool_calls ?? []) text += `\n${call.function.arguments}`;
  return text;
}

function parseArguments(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

function stringValues(value: unknown): string[] {
  if (typeof value === 'string') return [value];
  if (Array.isArray(value)) return value.flatMap(stringValues);
  if (value && typeof value === 'object') return Object.values(value).flatMap(stringValues);
  return [];
}

/** The index of the first message before `before` whose text holds `answer`. */
function firstHolder(texts: readonly string[], answer: string, before: number): number | undefined {
  for (let index = 0; index < before; index++) if (texts[index]!.includes(answer)) return index;
  return undefined;
}

/** The longest trailing part of a path (whole segments) that some tool output before `before` holds. */
function knownPathSuffix(token: string, texts: readonly string[], before: number): string | undefined {
  const segments = token.split('/').filter((segment) => segment.length > 0 && segment !== '.' && segment !== '..');
  for (let start = 0; start < segments.length; start++) {
    const suffix = segments.slice(start).join('/');
    if (suffix.length < MIN_ANSWER) return undefined;
    if (texts.slice(0, before).some((text) => text.includes(suffix))) return suffix;
  }
  return undefined;
}

function lineNumbers(args: unknown, strings: readonly string[]): number[] {
  const found = new Set<number>();
  if (args && typeof args === 'object' && !Array.isArray(args)) {
    const record = args as Record<string, unknown>;
    const range = record.view_range;
    if (Array.isArray(range))
      for (const value of range) if (Number.isInteger(value) && (value as number) > 0) found.add(value as number);
    if (Number.isInteger(record.insert_line) && (record.insert_line as number) > 0)
      found.add(record.insert_line as number);
  }
  for (const value of strings) {
    for (const match of value.matchAll(/\bline (\d{1,6})\b|\w:(\d{1,6})\b/g)) {
      const line = Number(match[1] ?? match[2]);
      if (line > 0) found.add(line);
    }
  }
  return [...found];
}

/** The arguments of the call each tool message answers (the nearest earlier assistant call with its id). */
function callArgumentsOfResults(messages: readonly ChatMessage[]): Map<number, string> {
  const result = new Map<number, string>();
  messages.forEach((message, index) => {
    if (message.role !== 'tool') return;
    for (let back = index - 1; back >= 0; back--) {
      const earlier = messages[back]!;
      const call =
        earlier.role === 'assistant'
          ? earlier.tool_calls?.find((candidate) => candidate.id === message.tool_call_id)
          : undefined;
      if (call) {
        result.set(index, call.function.arguments);
        return;
      }
    }
  });
  return result;
}

/**
 * The trimmed text of the first tool-output line before `before` that shows `line` as a line
 * number, in an output about the same file (`sameFile`: the call named a path).
 */
function lineShowing(
  line: number,
  texts: readonly string[],
  messages: readonly ChatMessage[],
  before: number,
  sameFile: (index: number) => boolean,
): string | undefined {
  const marker = new RegExp(`^\\s*${line}\\t|^${line}:|^[\\w./-]+:${line}:`);
  for (let index = 0; index < before; index++) {
    if (messages[index]!.role !== 'tool' || !sameFile(index)) continue;
    for (const outputLine of texts[index]!.split('\n')) {
      if (marker.test(outputLine)) return outputLine.trim().slice(0, MAX_LINE_ANSWER);
    }
  }
  return undefined;
}
