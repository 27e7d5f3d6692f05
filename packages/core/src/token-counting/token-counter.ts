import type { ChatMessage } from '../contracts/chat-message';
import type { ToolDefinition } from '../contracts/tool-definition';

/** Tokens added per message on top of its text. */
export const MESSAGE_OVERHEAD_TOKENS = 4;

/** Which tokenizer backs a counter. */
export type TokenizerBackend = 'gpt-tokenizer' | 'js-tiktoken' | 'heuristic';

/** `meta()` of a counter. */
export interface TokenCounterMeta {
  model: string;
  encoding: string | null;
  uses_tiktoken: boolean;
  strategy: 'tiktoken' | 'heuristic';
  backend: TokenizerBackend;
  /**
   * True when the counts only approximate the model's own tokenizer (Claude, Gemini, local models,
   * unknown names counted with o200k_base), or when the counter is the heuristic fallback.
   */
  approximate?: boolean;
  /** Why the counts are approximate, in plain language. */
  note?: string;
}

/**
 * Counts tokens. Exact (BPE) backends and a heuristic fallback share this interface.
 *
 * Message counts are `encode(text).length + 4`, where the text is the content plus tool-call names
 * and arguments; images count by the provider rule. Message counts are cached so that a message seen
 * before costs nothing the next turn.
 */
export interface ITokenCounter {
  meta(): TokenCounterMeta;
  /** Tokens of a text. Never throws on special-token strings such as `<|endoftext|>`. */
  count(text: string): number;
  /**
   * Tokens of a text when at most `limit`; otherwise some number greater than `limit` (it stops
   * counting early). Use it to test whether something fits without tokenizing all of it.
   */
  countUpTo(text: string, limit: number): number;
  /** Tokens of one message including the per-message overhead. Cached. */
  countMessage(message: Readonly<ChatMessage>): number;
  /** Sum of `countMessage` over messages. */
  countMessages(messages: ReadonlyArray<Readonly<ChatMessage>>): number;
  /** Tokens of tool definitions: the tokens of their JSON text. */
  countTools(tools: ReadonlyArray<Readonly<ToolDefinition>>): number;
}
