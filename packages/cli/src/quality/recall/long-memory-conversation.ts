import type { ChatMessage } from '@ctxkit/core';

/** A question asked after a long conversation, with the turns that hold its evidence. */
export interface LongMemoryQuestion {
  /** The newest user message it is asked as. */
  text: string;
  /** When it is asked (ms since epoch): the replay's clock at that compose. */
  askedAt: number;
  /** Indexes into the conversation's `history` of the evidence turns. */
  evidence: number[];
  /** The expected answer, when it is a short string worth looking for; undefined otherwise. */
  answer?: string;
  category?: string;
}

/** One long conversation of a long-memory data set, ready to replay. */
export interface LongMemoryConversation {
  id: string;
  systemPrompt: string;
  /** The messages after the system prompt. */
  history: ChatMessage[];
  /** For each message of `history`, when it was said (ms since epoch), from its session's date. */
  dates: number[];
  questions: LongMemoryQuestion[];
}
