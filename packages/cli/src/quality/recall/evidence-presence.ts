import { normaliseText } from '../normalise-text';

/** Words of at least this many in a row count as a quoted run. */
export const RUN_WORDS = 8;
/** A turn counts as present when at least this share of its words lies in runs found in the payload. */
export const COVERED_SHARE = 0.8;

const WORD = /[\p{L}\p{N}]+/gu;

function words(text: string): string[] {
  return text.toLowerCase().match(WORD) ?? [];
}

/**
 * A payload's text, read once to check many turns against it: a turn is present when its text is in
 * the payload verbatim, or when at least {@link COVERED_SHARE} of its words lie in runs of
 * {@link RUN_WORDS} words that the payload holds in that order (a turn quoted with a label, or with
 * its markup changed); a turn shorter than a run must occur as a whole, word for word.
 */
export class PayloadText {
  private readonly runs = new Set<string>();
  private readonly joined: string;
  private readonly normalised: string;

  constructor(private readonly text: string) {
    const all = words(text);
    for (let index = 0; index + RUN_WORDS <= all.length; index++)
      this.runs.add(all.slice(index, index + RUN_WORDS).join(' '));
    this.joined = ` ${all.join(' ')} `;
    this.normalised = ` ${normaliseText(text)} `;
  }

  /** Whether the turn `turnText` is in the payload (see the class comment). */
  holdsTurn(turnText: string): boolean {
    if (turnText.length === 0 || this.text.includes(turnText)) return true;
    const turn = words(turnText);
    if (turn.length === 0) return true;
    if (turn.length < RUN_WORDS) return this.joined.includes(` ${turn.join(' ')} `);
    const covered = new Uint8Array(turn.length);
    for (let index = 0; index + RUN_WORDS <= turn.length; index++) {
      if (this.runs.has(turn.slice(index, index + RUN_WORDS).join(' '))) covered.fill(1, index, index + RUN_WORDS);
    }
    let count = 0;
    for (const flag of covered) count += flag;
    return count / turn.length >= COVERED_SHARE;
  }

  /** Whether the answer occurs in the payload (lowercase, punctuation removed, whitespace collapsed). */
  holdsAnswer(answer: string): boolean {
    const needle = normaliseText(answer);
    return needle.length > 0 && this.normalised.includes(` ${needle} `);
  }
}
