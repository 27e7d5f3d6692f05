import {
  type AssistantMessage,
  type ChatMessage,
  type ILLMClient,
  type LLMCompletionRequest,
  LLMResponseError,
  providerCompactionItem,
  providerCompactionText,
  type SystemMessage,
  type ToolDefinition,
  type UserMessage,
} from '@ctxkit/core';
import { completeBeforeDeadline, contentlessSummary, contentlessSummaryMessage } from '@ctxkit/core/strategy-kit';

import type { CompactionConfig } from './compaction-config';
import { type CompactionReply, parseCompactionReply } from './parse-compaction-reply';

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

export interface CompactMessagesResult extends CompactionReply {
  request: LLMCompletionRequest;
}

/** The retain instructions used when `retainPrompt` is `null`. */
const DEFAULT_RETAIN_PROMPT = [
  'Before the summary, list inside <retain></retain> tags the facts that must survive word for word:',
  'identifiers, file paths, names, numbers, user constraints, decisions, and the ref ids of cached tool outputs',
  '(ref=...) that may need to be expanded again with tool_output_cache.',
].join('\n');

function nonEmptyDirectives(directives: readonly string[]): string[] {
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
function systemMessages(systemPrompt: string | undefined): SystemMessage[] {
  return systemPrompt ? [{ role: 'system', content: systemPrompt }] : [];
}

function unusableReply(message: string, llm: ILLMClient, request: LLMCompletionRequest): LLMResponseError {
  return new LLMResponseError(message, { client: llm.name, model: request.model });
}

/** Refuses a summary that is only an acknowledgement or an error message. */
function refuseContentless(summary: string, what: string, llm: ILLMClient, request: LLMCompletionRequest): void {
  const contentless = contentlessSummary(summary);
  if (contentless)
    throw unusableReply(`${what} is refused: ${contentlessSummaryMessage(contentless, summary)}`, llm, request);
}

/**
 * The summary request; with a `cacheKey`, the interrupt alone is also its `continuation`: a client that remembers the
 * conversation's last request can send that one with the interrupt appended, which reads the provider's prompt cache.
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
  return { ...reply, request };
}

/** Inputs of {@link compactWithProvider}: the latest payload's tools too, which the provider and its cache read. */
export interface ProviderCompactionOptions extends Omit<CompactMessagesOptions, 'stripTrailingToolCalls'> {
  tools: ReadonlyArray<ToolDefinition>;
}

/**
 * Instructions for the provider's summary: `undefined` (the provider's own prompt) unless directives or a
 * `compact` focus ask for more. Anthropic replaces its prompt with them; OpenAI takes none.
 */
export function providerCompactionInstructions(
  config: Pick<CompactionConfig, 'summaryDirectives' | 'retainDirectives'>,
  focus?: string,
): string | undefined {
  const asks = nonEmptyDirectives([...config.retainDirectives, ...config.summaryDirectives]);
  if (focus && focus.trim() !== '') asks.push(`Focus on: ${focus.trim()}`);
  if (asks.length === 0) return undefined;
  return [
    "Summarize the conversation so that it can go on from the summary alone: the task and its goals, the user's " +
      'instructions and constraints, identifiers, file paths, numbers and decisions exactly as written, what was ' +
      'done and what is left.',
    'Also:',
    ...asks.map((ask) => `- ${ask}`),
  ].join('\n');
}

/**
 * The provider compaction request: system prompt, tools and `cacheKey` as a turn carries them, so that it
 * starts with the bytes of the turns, and `providerCompaction` instead of an appended instruction.
 */
export function buildProviderCompactionRequest(
  messages: ReadonlyArray<ChatMessage>,
  options: Omit<ProviderCompactionOptions, 'llm'>,
): LLMCompletionRequest {
  const instructions = providerCompactionInstructions(options.config, options.focus);
  return {
    model: options.config.model ?? options.callerModel,
    messages: [...systemMessages(options.systemPrompt), ...stripTrailingToolCalls(messages)],
    tools: options.tools.length > 0 ? [...options.tools] : null,
    maxOutputTokens: options.config.maxSummaryTokens,
    providerCompaction: instructions !== undefined ? { instructions } : {},
    ...(options.cacheKey !== undefined ? { cacheKey: options.cacheKey } : {}),
    ...(options.signal ? { signal: options.signal } : {}),
  };
}

/**
 * The provider's compaction of `messages`: its `item` as received, `summary` its readable text (Anthropic's,
 * checked like a summary), `''` for an encrypted one (OpenAI's).
 * @throws LLMResponseError (`CTXKIT_LLM_RESPONSE_INVALID`) when the answer holds no compaction item, or a contentless
 *   one
 * @throws LLMTimeoutError (`CTXKIT_LLM_TIMEOUT`) past the deadline; LLMRequestError from the client
 */
export async function compactWithProvider(
  messages: ReadonlyArray<ChatMessage>,
  options: ProviderCompactionOptions,
): Promise<CompactMessagesResult> {
  const { llm } = options;
  const request = buildProviderCompactionRequest(messages, options);
  if (request.messages.every((message) => message.role === 'system'))
    throw unusableReply('nothing to compact before the kept turns', llm, request);
  const completion = await completeBeforeDeadline(llm, request, options.config.timeoutMs);
  const item = completion.message ? providerCompactionItem(completion.message) : undefined;
  if (!item)
    throw unusableReply('the provider answered the compaction request without a compaction item', llm, request);
  const text = providerCompactionText(item) ?? '';
  if (text !== '') refuseContentless(text, "the provider's compaction", llm, request);
  return { retain: '', summary: text, item, request };
}
