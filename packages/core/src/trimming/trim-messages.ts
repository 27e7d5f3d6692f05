import type { ChatMessage } from '../contracts/chat-message';
import { groupEndingAt } from '../messages/group-tool-calls';
import { createTokenCounter } from '../token-counting/create-token-counter';
import { messageText } from '../token-counting/message-text';
import type { ITokenCounter, TokenCounterMeta } from '../token-counting/token-counter';
import { cosineSimilarity } from './cosine-similarity';

/** An embedder for `semantic_retention`: text → vector. Synchronous. */
export type Embedder = (text: string) => ReadonlyArray<number>;

/** `semanticOptions` of {@link trimMessages}; returned unchanged in the result. */
export interface SemanticOptions {
  /** When a function, `semantic_retention` is measured with it. */
  embedder?: Embedder | unknown;
  [key: string]: unknown;
}

/** Options of {@link trimMessages}. */
export interface TrimMessagesOptions {
  /** Ceiling for the whole result, system message included. */
  maxContextTokens: number;
  /** Model name or alias; picks the counter when `tokenCounter` is absent. */
  model: string;
  /** A counter to share; when absent one is created from `model`. */
  tokenCounter?: ITokenCounter;
  semanticOptions?: SemanticOptions;
}

/** Statistics of a trim. */
export interface TrimStatistics {
  /** `output_tokens / input_tokens`; 1.0 when the input is empty. */
  compress_ratio: number;
  /** The same value under its legacy name. */
  compression_ratio: number;
  input_tokens: number;
  output_tokens: number;
  /** Cosine similarity of the embeddings of the text before and after; only with an embedder. 0.0 when it fails. */
  semantic_retention?: number;
}

/** What {@link trimMessages} returns. */
export interface TrimMessagesResult {
  messages: ChatMessage[];
  statistics: TrimStatistics;
  token_counter: TokenCounterMeta;
  semantic_options: SemanticOptions;
}

/**
 * `trim_messages`: keeps the first system message, then adds the other messages newest
 * first while they fit `maxContextTokens`, and returns a new list of shallow copies (the input is
 * never mutated). Messages move as whole tool-call groups (an assistant
 * `tool_calls` message with all its results), and a `tool` message is never kept without its call:
 * orphan results and calls without results are left out. The walk stops at the first group that does
 * not fit, so only what is kept plus that group is counted for the decision.
 */
export function trimMessages(
  messages: ReadonlyArray<Readonly<ChatMessage>>,
  options: TrimMessagesOptions,
): TrimMessagesResult {
  const counter = options.tokenCounter ?? createTokenCounter({ model: options.model });
  const semanticOptions = options.semanticOptions ?? {};
  const systemIndex = messages.findIndex((message) => message.role === 'system');
  const inputTokens = counter.countMessages(messages);

  let used = systemIndex === -1 ? 0 : counter.countMessage(messages[systemIndex]!);
  const keptGroups: Array<[number, number]> = [];
  let end = messages.length;
  while (end > 0) {
    if (end - 1 === systemIndex) {
      end--;
      continue;
    }
    const group = groupEndingAt(messages, end);
    const start = group.start;
    end = group.start;
    if (group.kind === 'orphan-tool' || group.kind === 'incomplete-tool-exchange') continue;
    let tokens = 0;
    for (let index = start; index < group.end; index++) tokens += counter.countMessage(messages[index]!);
    if (used + tokens > options.maxContextTokens) break;
    used += tokens;
    keptGroups.push([start, group.end]);
  }

  const kept: ChatMessage[] = [];
  if (systemIndex !== -1) kept.push({ ...messages[systemIndex]! } as ChatMessage);
  for (let position = keptGroups.length - 1; position >= 0; position--) {
    const [from, to] = keptGroups[position]!;
    for (let index = from; index < to; index++) kept.push({ ...messages[index]! } as ChatMessage);
  }

  const ratio = inputTokens === 0 ? 1.0 : used / inputTokens;
  const statistics: TrimStatistics = {
    compress_ratio: ratio,
    compression_ratio: ratio,
    input_tokens: inputTokens,
    output_tokens: used,
  };
  if (typeof semanticOptions.embedder === 'function') {
    statistics.semantic_retention = semanticRetention(semanticOptions.embedder as Embedder, messages, kept);
  }
  return { messages: kept, statistics, token_counter: counter.meta(), semantic_options: semanticOptions };
}

function joinedText(messages: ReadonlyArray<Readonly<ChatMessage>>): string {
  return messages.map((message) => messageText(message)).join('\n');
}

function semanticRetention(
  embedder: Embedder,
  before: ReadonlyArray<Readonly<ChatMessage>>,
  after: ReadonlyArray<Readonly<ChatMessage>>,
): number {
  try {
    const a = embedder(joinedText(before));
    const b = embedder(joinedText(after));
    return cosineSimilarity(a, b) ?? 0.0;
  } catch {
    return 0.0;
  }
}
