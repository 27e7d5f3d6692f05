/** Why a summary a model wrote carries nothing to keep: see {@link contentlessSummary}. */
export type ContentlessSummary = 'empty' | 'acknowledgement' | 'error';

/** Words a reply made only of acknowledges with ("OK", "Got it, here is the summary."). */
const ACKNOWLEDGEMENT_WORDS = new Set(
  (
    'ok okay k sure yes yep yeah alright all right fine good great perfect understood noted acknowledged roger got ' +
    'it ' +
    "will do done certainly of course absolutely no problem thanks thank you i i'll ill i'm im am happy to help glad " +
    'here is the a below summary updated as requested summarized summarize summarizing let me know that this'
  ).split(' '),
);

/** At most this many words for a reply to be taken as an acknowledgement only. */
const MAX_ACKNOWLEDGEMENT_WORDS = 12;

/** An error, refusal or provider failure answered instead of a summary, at the reply's start. */
const ERROR_REPLY = new RegExp(
  String.raw`^\s*(?:\[?(?:error|exception)\]?\s*:|traceback \(most recent call last\)|(?:http\s*)?[45` +
    String.raw`]\d\d\s+(?:error|bad request|unauthorized|forbidden|not found|too many requests|internal` +
    String.raw` server error|bad gateway|service unavailable|gateway time-?out)\b|(?:rate limit|quota) ` +
    String.raw`(?:exceeded|reached)|request failed\b|internal server error\b|service unavailable\b|the ` +
    String.raw`model is overloaded\b|context length exceeded\b|maximum context length\b|i'?m sorry\b|i ` +
    String.raw`apologi[sz]e\b|i (?:cannot|can'?t|am unable to|'m unable to)\b|as an ai\b)`,
  'i',
);

/** At most this many characters for a reply to be taken as an error message only. */
const MAX_ERROR_CHARS = 400;

/**
 * Why a summary that a model wrote carries nothing a summary must keep, or `undefined` when it may be
 * one: `empty` (blank), `acknowledgement` (only "OK", "Understood.", "Sure, here is the summary:" and
 * the like, at most 12 words), or `error` (a short text that starts as an error message, a provider
 * failure or a refusal: "Error: …", "429 Too Many Requests", "I'm sorry, I can't …"). A strategy
 * refuses such a summary as a model error and keeps what it would have replaced.
 */
export function contentlessSummary(text: string): ContentlessSummary | undefined {
  const trimmed = text.trim();
  if (trimmed === '') return 'empty';
  const words = trimmed
    .toLowerCase()
    .replace(/[^\p{L}\p{N}'\s]+/gu, ' ')
    .split(/\s+/)
    .filter((word) => word !== '');
  if (words.length === 0) return 'empty';
  if (words.length <= MAX_ACKNOWLEDGEMENT_WORDS && words.every((word) => ACKNOWLEDGEMENT_WORDS.has(word)))
    return 'acknowledgement';
  if (trimmed.length <= MAX_ERROR_CHARS && ERROR_REPLY.test(trimmed)) return 'error';
  return undefined;
}

/** The sentence a refused summary is reported with. */
export function contentlessSummaryMessage(kind: ContentlessSummary, text: string): string {
  const quoted = JSON.stringify(text.trim().slice(0, 120));
  if (kind === 'empty') return 'the summary is empty';
  if (kind === 'acknowledgement') return `the summary is only an acknowledgement (${quoted}), not a summary`;
  return `the summary is an error message (${quoted}), not a summary`;
}
