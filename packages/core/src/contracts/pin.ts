import type { ChatRole } from './chat-message';

/** What a pin keeps: one message of the host's history, or a text. */
export type PinKind = 'message' | 'text';

/**
 * Something a session keeps for the rest of the conversation, whatever its strategy drops,
 * summarizes or trims: shown verbatim in the pinned block right after the system prompt of every
 * payload. See docs/14-controlling-what-survives.md.
 */
export interface Pin {
  /** The pin's id in its session (`p1`, `p2`, … in the order pins were added). */
  id: string;
  /** What the pin is, as the pinned block names it (`task`, `first user message`, `message 3`). */
  label: string;
  kind: PinKind;
  /**
   * For a message pin: the index of the message in the history the host sends; absent until known (a declared
   * `first-user` pin before the first user message).
   */
  messageIndex?: number;
  /** For a message pin: the role of the message, once a payload has captured it. */
  role?: ChatRole;
  /** The pinned text: the text given, or the message's text once a payload has captured it (empty until then). */
  text: string;
  /** Tokens of the pin's entry in the pinned block, once its text is known. */
  tokens?: number;
  /** When the pin was added (milliseconds since epoch, the session's clock). */
  createdAt: number;
}

/** Options of `session.pin()`. */
export interface PinOptions {
  /** How the pinned block names the pin. @default `message <index>` for a message, `note` for a text */
  label?: string;
}
