import type { ChatMessage, ToolDefinition } from '@ctxkit/core';

/** A checkable fact of a recorded conversation (`facts` in the bundled data's record format). */
export interface TranscriptFact {
  question: string;
  answer: string | null;
  /** Indexes into `messages` of the messages that hold the evidence. */
  evidence_message_indexes?: number[];
  origin?: string;
}

/** One conversation of a JSONL transcript (the bundled data's record format). */
export interface TranscriptRecord {
  id: string;
  /** `messages[0]` is the system prompt. */
  messages: ChatMessage[];
  tools?: ToolDefinition[];
  facts?: TranscriptFact[];
  source?: string;
  license?: string;
  meta?: Record<string, unknown>;
}
