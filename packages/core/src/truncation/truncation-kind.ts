/**
 * How a text is cut to fit: `head` keeps the beginning (file reads), `tail` keeps the end (logs
 * whose last lines matter), `head-tail` keeps both ends and elides the middle (command output).
 * Other kinds (e.g. an outline plus a part, for large files) join this union later.
 */
export type TruncationKind = 'head' | 'tail' | 'head-tail';

/** What a truncation kept and left out. */
export interface TruncationResult {
  /** The text to send: the original when it fits, else the kept parts and a visible marker. */
  text: string;
  truncated: boolean;
  kind: TruncationKind;
  /** Tokens of `text` by the counter (exact, or the counter's upper bound), when cut by tokens. */
  tokens?: number;
  /** UTF-8 bytes of `text`. */
  bytes: number;
  /** What was left out. */
  elided: { lines: number; bytes: number; chars: number };
}
