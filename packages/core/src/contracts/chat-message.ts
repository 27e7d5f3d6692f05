/**
 * Canonical message shape: the OpenAI chat-completions format. Provider adapters convert to and
 * from other shapes (see `@ctxkit/kernel`).
 * @see docs/02-architecture.md
 */

/** A text part of a multi-part content. */
export interface TextContentPart {
  type: 'text';
  text: string;
}

/** An image part. Counted by the provider's image rule, never as base64 text. */
export interface ImageContentPart {
  type: 'image_url';
  image_url: { url: string; detail?: 'auto' | 'low' | 'high' };
}

/** One part of a multi-part user message: text or an image. */
export type ContentPart = TextContentPart | ImageContentPart;

/**
 * Reference to the full content of a tool output kept in the tool output cache.
 * A tool message that carries it shows an in-context view; the whole output is recoverable by `id`.
 */
export interface ToolOutputRef {
  id: string;
  byte_size?: number;
  line_count?: number;
}

/** One function call an assistant message asks for; its result comes back in a tool message with the same `id`. */
export interface ToolCall {
  id: string;
  type: 'function';
  function: { name: string; arguments: string };
}

/** Instructions to the model: the system prompt, and memory blocks a strategy places after it. */
export interface SystemMessage {
  role: 'system';
  content: string | TextContentPart[];
  name?: string;
}

/** What the user said: text, or text and image parts. */
export interface UserMessage {
  role: 'user';
  content: string | ContentPart[];
  name?: string;
}

/** The model's answer: text, tool calls, or both, with the provider reasoning that came with them. */
export interface AssistantMessage {
  role: 'assistant';
  /** `null` when the turn is only tool calls. */
  content: string | null;
  tool_calls?: ToolCall[];
  name?: string;
  /**
   * Opaque provider items that came with this message (reasoning, thinking, compaction), in the
   * order the provider gave them. Strategies keep or drop them with their message and never edit,
   * split or reorder them; adapters send them back byte for byte, attached to the message they came with.
   */
  reasoning?: ReasoningItem[];
}

/**
 * An opaque provider item, kept as received and sent back unchanged:
 * - provider `anthropic`: a `thinking` block (with its `signature`), a `redacted_thinking` block
 *   (with its `data`), a `compaction` block (`content`, `encrypted_content`, `signature`, `tool_changes`);
 * - provider `openai` (Responses API): a `reasoning` item (with its `encrypted_content`), a
 *   `compaction` item (`id`, `encrypted_content`);
 * - provider `openai-compatible`: a chat server's `reasoning_content`;
 * - any other provider (an adapter's own, such as `ai-sdk`): whatever that adapter keeps.
 * Token counting reads only the part sent back as input (see `reasoningText`).
 */
export interface ReasoningItem {
  provider: 'openai' | 'anthropic' | string;
  /** The provider's item, kept as received. */
  data: Record<string, unknown>;
}

/**
 * A tool's result, answering the call whose id is `tool_call_id`; `output_ref` points at the whole output when the view
 * is shortened.
 */
export interface ToolMessage {
  role: 'tool';
  tool_call_id: string;
  content: string | TextContentPart[];
  output_ref?: ToolOutputRef;
}

/** One message of a conversation, in ctxkit's canonical (OpenAI chat) shape. */
export type ChatMessage = SystemMessage | UserMessage | AssistantMessage | ToolMessage;

/** The role of a message. */
export type ChatRole = ChatMessage['role'];

/** Readonly view used at every strategy boundary: strategies never mutate what they are given. */
export type ReadonlyChatMessage = Readonly<ChatMessage>;
/** A history as strategies receive it: never mutated. */
export type ReadonlyHistory = ReadonlyArray<Readonly<ChatMessage>>;
