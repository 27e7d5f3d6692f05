import {
  type AssistantMessage,
  type ChatMessage,
  type ILLMClient,
  type LLMCompletion,
  type LLMCompletionRequest,
  LLMResponseError,
  type SystemMessage,
  type UserMessage,
} from '@ctxkit/core';
import { completeBeforeDeadline, contentlessSummary, contentlessSummaryMessage } from '@ctxkit/core/strategy-kit';

import type { CompactionConfig } from './compaction-config';
import { type CompactionReply, parseCompactionReply } from './parse-compaction-reply';

/** Inputs of {@link compactMessages}. */
export interface CompactMessagesOptions {
  llm: ILLMClient;
  /** The agent's model, used when `config.model` is `null`. */
  callerModel: string;
  config: CompactionConfig;
  /** The system prompt, sent first so that the summary keeps the task's rules. */
  systemPrompt?: string;
  /** What the `compact` tool was asked to focus on. */
  focus?: string;
  /** Whether to strip a trailing assistant `tool_calls` message; only a test sets it to `false`. */
  stripTrailingToolCalls?: boolean;
  /** The conversation's `cacheKey` (`conversationCacheKey(agentId, sessionId)`). */
  cacheKey?: string;
  signal?: AbortSignal;
}

/** A finished compaction call. */
export interface CompactMessagesResult extends CompactionReply {
  request: LLMCompletionRequest;
  completion: LLMCompletion;
  model: string;
}

/** The retain instructions used when `retainPrompt` is `null`. */
const DEFAULT_RETAIN_PROMPT = [
  'Before the summary, list inside <retain></retain> tags the facts that must survive word for word:',
  'identifiers, file paths, names, numbers, user constraints, decisions, and the ref ids of cached tool outputs',
  '(ref=...) that may need to be expanded again with tool_output_cache.',
].join('\n');

/** The non-empty directives, trimmed. */
export function nonEmptyDirectives(directives: readonly string[]): string[] {
  return directives.map((directive) => directive.trim()).filter((directive) => directive !== '');
}

function bullets(directives: readonly string[]): string {
  return nonEmptyDirectives(directives)
    .map((directive) => `- ${directive}`)
    .join('\n');
}

/** The user message appended for the summary call; it never stays in the history. */
function compactionInterrupt(config: CompactionConfig, focus: string | undefined): UserMessage {
  const retainDirectives = bullets(config.retainDirectives);
  const summaryDirectives = bullets(config.summaryDirectives);
  const sections = [
    'The conversation above is about to be compacted: it will be replaced by what you write now. Do not call tools.',
    (config.retainPrompt ?? DEFAULT_RETAIN_PROMPT) + (retainDirectives ? `\n${retainDirectives}` : ''),
    config.summaryPrompt + (summaryDirectives ? `\nAlso:\n${summaryDirectives}` : ''),
  ];
  if (focus && focus.trim() !== '') sections.push(`Focus of this compaction: ${focus.trim()}`);
  sections.push('Answer with the <retain></retain> block first, then the <summary></summary> block.');
  return { role: 'user', content: sections.join('\n\n') };
}

/**
 * `messages` without the calls of a trailing assistant `tool_calls` message, which have no results yet (a
 * provider rejects the request): its `content` stays, if any. `messages` itself when there is nothing to strip.
 */
export function stripTrailingToolCalls(messages: ReadonlyArray<ChatMessage>): ChatMessage[] {
  const last = messages[messages.length - 1];
  if (!last || last.role !== 'assistant' || !last.tool_calls || last.tool_calls.length === 0)
    return messages as ChatMessage[];
  const head = messages.slice(0, -1);
  const content = typeof last.content === 'string' ? last.content : '';
  if (content.trim() === '') return head;
  const { tool_calls: _calls, reasoning: _reasoning, ...rest } = last;
  const stripped: AssistantMessage = { ...rest, content };
  return [...head, stripped];
}

/** The system prompt as the first message of a summary request, none when it is empty. */
export function systemMessages(systemPrompt: string | undefined): SystemMessage[] {
  return systemPrompt ? [{ role: 'system', content: systemPrompt }] : [];
}

export function unusableReply(message: string, llm: ILLMClient, request: LLMCompletionRequest): LLMResponseError {
  return new LLMResponseError(message, { client: llm.name, model: request.model });
}

/** Refuses a summary that is only an acknowledgement or an error message. */
export function refuseContentless(summary: string, what: string, llm: ILLMClient, request: LLMCompletionRequest): void {
  const contentless = contentlessSummary(summary);
  if (contentless)
    throw unusableReply(`${what} is refused: ${contentlessSummaryMessage(contentless, summary)}`, llm, request);
}

/**
 * The summary request; with a `cacheKey`, the interrupt alone is also its `continuation`: a client that
 * remembers the conversation's last request can send that one with the interrupt appended, which reads the
 * provider's prompt cache.
 */
export function buildCompactionRequest(
  messages: ReadonlyArray<ChatMessage>,
  options: Omit<CompactMessagesOptions, 'llm'>,
): LLMCompletionRequest {
  const shaped = options.stripTrailingToolCalls === false ? [...messages] : stripTrailingToolCalls(messages);
  return {
    model: options.config.model ?? options.callerModel,
    messages: [...systemMessages(options.systemPrompt), ...shaped, compactionInterrupt(options.config, options.focus)],
    tools: null,
    maxOutputTokens: options.config.maxSummaryTokens,
    ...(options.cacheKey !== undefined
      ? { cacheKey: options.cacheKey, continuation: [compactionInterrupt(options.config, options.focus)] }
      : {}),
    ...(options.signal ? { signal: options.signal } : {}),
  };
}

/**
 * The retain + summary: the model called without tools, the final `<retain>` and `<summary>` blocks of its answer.
 * @throws LLMResponseError (`CTXKIT_LLM_RESPONSE_INVALID`) when the reply has no non-empty `<summary>` block, or one
 *   that is only an acknowledgement or an error message (`contentlessSummary`)
 * @throws LLMTimeoutError (`CTXKIT_LLM_TIMEOUT`) when the call has not settled within `compaction.timeoutMs`
 * @throws LLMRequestError / LLMTimeoutError from the client, unchanged
 */
export async function compactMessages(
  messages: ReadonlyArray<ChatMessage>,
  options: CompactMessagesOptions,
): Promise<CompactMessagesResult> {
  const { llm } = options;
  const request = buildCompactionRequest(messages, options);
  const completion = await completeBeforeDeadline(llm, request, options.config.timeoutMs);
  const text = typeof completion.text === 'string' ? completion.text : '';
  const reply = parseCompactionReply(text);
  if (!reply) {
    const problem = text.trim() === '' ? 'is empty' : 'has no <summary>…</summary> block';
    throw unusableReply(`the compaction reply ${problem}`, llm, request);
  }
  refuseContentless(reply.summary, 'the compaction reply', llm, request);
  return { ...reply, request, completion, model: request.model ?? llm.defaultModel };
}
