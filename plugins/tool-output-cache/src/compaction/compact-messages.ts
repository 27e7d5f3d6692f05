import {
  type AssistantMessage,
  type ChatMessage,
  type ILLMClient,
  type LLMCompletionRequest,
  LLMResponseError,
  providerCompactionItem,
  providerCompactionText,
  type ReasoningItem,
  type SystemMessage,
  type ToolDefinition,
  type UserMessage,
} from '@ctxkit/core';
import { completeBeforeDeadline, contentlessSummary, contentlessSummaryMessage } from '@ctxkit/core/strategy-kit';

import type { CompactionConfig } from '../tool-output-cache-strategy-config';

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

/** A compaction reply, and the request it answers. */
export interface CompactMessagesResult {
  /** The `<retain>` block, `''` when the reply has none. */
  retain: string;
  /** The `<summary>` block; never empty, but for a provider compaction whose item is encrypted (`''`). */
  summary: string;
  /** The provider's compaction item, sent back unchanged; `summary` is then its readable text. */
  item?: ReasoningItem;
  request: LLMCompletionRequest;
}

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

/** `messages` without a trailing assistant message's calls, which have no results yet; its `content` stays, if any. */
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
 * The summary request; with a `cacheKey` the interrupt is also its `continuation`, which a client may append to the
 * conversation's last request to read the provider's prompt cache.
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
 * @throws LLMResponseError (`CTXKIT_LLM_RESPONSE_INVALID`) when the reply has no non-empty `<summary>` or a
 *   contentless one
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

/** Instructions for the provider's summary, when directives or a focus ask for more than its own prompt. */
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

/** The provider compaction request: system prompt, tools and `cacheKey` as a turn's, so that it reads their cache. */
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
 * The provider's compaction of `messages`: its `item` as received, `summary` its readable text, `''` when encrypted.
 * @throws LLMResponseError (`CTXKIT_LLM_RESPONSE_INVALID`) when the answer has no compaction item or a contentless one
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

/**
 * The model's final `<tag>…</tag>` block, or `undefined`. It ends at the last closing tag and starts at the opening tag
 * that balances it, so that a draft block before it is skipped and a quoted pair stays inside. When closing tags
 * outnumber opening ones (a quoted `</summary>`), it starts at the last opening tag.
 */
export function extractFinalTagBlock(text: string, tag: string): string | undefined {
  const open = `<${tag}>`;
  const close = `</${tag}>`;
  const end = text.lastIndexOf(close);
  if (end === -1) return undefined;
  const tags: Array<{ at: number; opening: boolean }> = [];
  for (let at = text.indexOf(open); at !== -1 && at < end; at = text.indexOf(open, at + 1))
    tags.push({ at, opening: true });
  for (let at = text.indexOf(close); at !== -1 && at < end; at = text.indexOf(close, at + 1))
    tags.push({ at, opening: false });
  tags.sort((a, b) => a.at - b.at);
  let depth = 1;
  for (let index = tags.length - 1; index >= 0; index--) {
    const found = tags[index]!;
    depth += found.opening ? -1 : 1;
    if (depth === 0) return text.slice(found.at + open.length, end).trim();
  }
  const lastOpen = text.lastIndexOf(open, end - 1);
  return lastOpen === -1 ? undefined : text.slice(lastOpen + open.length, end).trim();
}

/** The `<retain>` and `<summary>` of a compaction reply; `undefined` without a non-empty summary. */
export function parseCompactionReply(text: string): Pick<CompactMessagesResult, 'retain' | 'summary'> | undefined {
  const summary = extractFinalTagBlock(text, 'summary');
  if (summary === undefined || summary === '') return undefined;
  // The retain block is searched before the summary, so a `<retain>` quoted inside the summary is not taken.
  const summaryStart = text.lastIndexOf(summary);
  const retain =
    (summaryStart > 0 ? extractFinalTagBlock(text.slice(0, summaryStart), 'retain') : undefined) ??
    extractFinalTagBlock(text, 'retain') ??
    '';
  return { retain, summary };
}
