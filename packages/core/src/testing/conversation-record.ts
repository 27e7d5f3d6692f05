import type { ChatMessage } from '../contracts/chat-message';
import type { ToolDefinition } from '../contracts/tool-definition';

/** A checkable fact of a bundled conversation (derived or annotated). */
export interface ConversationFact {
  question: string;
  answer: string | null;
  /** Indexes into `messages` (subtract 1 for `history`). */
  evidence_message_indexes: number[];
  origin?: string;
  [extra: string]: unknown;
}

/**
 * One record of a bundled conversation file (`fixtures/conversations/*.jsonl`). `messages[0]` is
 * always the system prompt; `systemPrompt` and `history` are the ready-to-use split
 * (`history = messages.slice(1)`, the same message objects).
 */
export interface ConversationRecord {
  id: string;
  source?: string;
  license?: string;
  messages: ChatMessage[];
  /** OpenAI tool definitions, where the source recorded them. */
  tools?: ToolDefinition[];
  facts?: ConversationFact[];
  meta?: Record<string, unknown>;
  /** `messages[0].content` as text. */
  systemPrompt: string;
  /** `messages.slice(1)`. */
  history: ChatMessage[];
}

/** Names of the bundled conversation files (without `.jsonl`). Both are MIT licensed. */
export type BundledConversationName = 'tau-bench-airline' | 'openhands-multi-swe-bench';

/** Every bundled conversation file, in a stable order. */
export const BUNDLED_CONVERSATIONS: readonly BundledConversationName[] = [
  'tau-bench-airline',
  'openhands-multi-swe-bench',
];
