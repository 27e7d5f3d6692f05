import { type ChatMessage } from '@ctxkit/core';
import { messageText } from '@ctxkit/core/strategy-kit';

import { itemsInTexts } from './retained-items';

/** At most this many unsupported claims are listed in a receipt. */
export const MAX_LISTED_UNSUPPORTED_CLAIMS = 40;

/** A sentence that states a rule, a limit or a preference. */
const CONSTRAINT_MARKER = new RegExp(
  String.raw`\b(?:must|never|always|only|do not|don't|does not|doesn't|cannot|can't|required|requires` +
    String.raw`|at most|at least|no later than|no earlier than|no more than|not allowed|forbidden|avoid` +
    String.raw`|prefers?|insists?)\b`,
  'i',
);

/** Words a summary uses about any conversation: never taken as the content a constraint claims. */
const COMMON_WORDS = new Set(
  (
    'user users assistant agent customer asked asks wants wanted said says stated states mentioned needs need would ' +
    'should could ' +
    'which that this these those with from into about there their they them have has been will also then than when ' +
    'what where ' +
    'while each every more most less least only must never always cannot required require requires avoid allowed ' +
    'forbidden prefer ' +
    "prefers insist insists does doesn don't doesn't later earlier before after other same some such very just like " +
    'make made ' +
    'rule rules constraint constraints instruction instructions preference preferences stated keep kept'
  ).split(' '),
);

/**
 * What a summary states that the turns it folds (and the summary before it) do not support, for the
 * receipt: ids, dates, URLs, paths, code spans and numbers of three digits or more written in the
 * summary that appear verbatim in neither; then sentences stating a constraint (must, never, only, at
 * most, prefers…) with a word of four letters or more whose stem appears in neither. In order of
 * appearance, at most {@link MAX_LISTED_UNSUPPORTED_CLAIMS}. A heuristic without another model call:
 * a claim it lists may be a paraphrase; one it leaves out is not proven.
 */
export function unsupportedClaims(
  summary: string,
  messages: ReadonlyArray<Readonly<ChatMessage>>,
  previousSummary: string | null,
): string[] {
  const source = [previousSummary ?? '', ...messages.map((message) => messageText(message))].join('\n');
  const claims: string[] = [];
  for (const item of itemsInTexts([summary.replace(/<\/?retain>/g, '')], Infinity)) {
    // A part of a claim already listed (the year of a date) is not listed again.
    if (!source.includes(item.text) && !claims.some((claim) => claim.includes(item.text))) claims.push(item.text);
  }
  const lowerSource = source.toLowerCase();
  for (const sentence of summary.split(/(?<=[.!?。！？])\s+|\n+/)) {
    const text = sentence.replace(/^[\s*•\-\d.)]+/, '').trim();
    if (text === '' || !CONSTRAINT_MARKER.test(text)) continue;
    const words = text.toLowerCase().match(/\p{L}[\p{L}'-]{3,}/gu) ?? [];
    const unsupported = words.some(
      (word) => !COMMON_WORDS.has(word) && !lowerSource.includes(word.slice(0, Math.max(4, word.length - 2))),
    );
    if (unsupported && !claims.includes(text)) claims.push(text.length > 200 ? `${text.slice(0, 199)}…` : text);
  }
  return claims.slice(0, MAX_LISTED_UNSUPPORTED_CLAIMS);
}
