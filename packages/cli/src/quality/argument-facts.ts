import type { ChatMessage } from '@ctxkit/core';
import { messageText } from '@ctxkit/core/strategy-kit';

import type { TranscriptRecord } from '../lab/transcript-record';
import type { NeededFact } from './needed-fact';

/** Shortest argument value kept (airport codes are three letters); shorter strings occur everywhere. */
const MIN_ANSWER = 3;
/** Longest argument value kept: longer ones are free text, seldom repeated verbatim. */
const MAX_ANSWER = 200;
/** A plain lowercase word (`economy`, `celsius`): a choice from the tool's schema, not something learnt. */
const PLAIN_WORD = /^[a-z]+$/;

/** Each string value of parsed arguments with its path (`order_id`, `flights[0].date`). */
function stringLeaves(value: unknown, at: string, leaves: Array<{ path: string; value: string }>): void {
  if (typeof value === 'string') leaves.push({ path: at, value });
  else if (Array.isArray(value)) value.forEach((item, index) => stringLeaves(item, `${at}[${index}]`, leaves));
  else if (value !== null && typeof value === 'object')
    for (const [key, item] of Object.entries(value)) stringLeaves(item, at === '' ? key : `${at}.${key}`, leaves);
}

function parsedArguments(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

/** True for a value worth checking: 3 to 200 characters once trimmed, and not a plain lowercase word. */
function isCheckable(value: string): boolean {
  const trimmed = value.trim();
  return trimmed === value && value.length >= MIN_ANSWER && value.length <= MAX_ANSWER && !PLAIN_WORD.test(value);
}

/**
 * Facts of any recorded conversation with tool calls, derived from the calls themselves the way
 * the tau-bench facts are derived from its gold actions: for each string argument of each call
 * (`<function>: value of <path>?`), the value is a fact when the user or a tool output said it
 * before the call, verbatim, and said it first (not the system prompt, not the agent's own words
 * or earlier arguments). It is needed in the payload composed just before the assistant message
 * that makes the call, and matched verbatim; its evidence is every user or tool message before the
 * call that holds it. Values shorter than 3 characters, longer than 200, with surrounding spaces,
 * or plain lowercase words (a choice from the tool's schema, such as `economy`) are not checked.
 * At most one fact per value per assistant message.
 */
export function argumentFacts(record: TranscriptRecord): NeededFact[] {
  const texts = record.messages.map((message) => messageText(message));
  const facts: NeededFact[] = [];
  record.messages.forEach((message, index) => {
    if (message.role !== 'assistant' || !message.tool_calls?.length) return;
    const seen = new Set<string>();
    for (const call of message.tool_calls) {
      const leaves: Array<{ path: string; value: string }> = [];
      stringLeaves(parsedArguments(call.function.arguments), '', leaves);
      for (const { path, value } of leaves) {
        if (seen.has(value) || !isCheckable(value)) continue;
        const holders = texts.slice(0, index).flatMap((text, at) => (text.includes(value) ? [at] : []));
        if (holders.length === 0 || !saidByUserOrTool(record.messages[holders[0]!]!)) continue;
        seen.add(value);
        facts.push({
          question: `${call.function.name}: value of ${path === '' ? 'the arguments' : path}?`,
          answer: value,
          neededAt: index,
          match: 'verbatim',
          evidence: holders.filter((at) => saidByUserOrTool(record.messages[at]!)),
        });
      }
    }
  });
  return facts;
}

function saidByUserOrTool(message: ChatMessage): boolean {
  return message.role === 'user' || message.role === 'tool';
}
