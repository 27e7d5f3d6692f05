import {
  type ChatMessage,
  type ILLMClient,
  type LLMCompletion,
  type LLMCompletionRequest,
  LLMResponseError,
  type SystemMessage,
} from '@ctxkit/core';
import { completeBeforeDeadline, contentlessSummary, contentlessSummaryMessage } from '@ctxkit/core/strategy-kit';

import type { CompactionConfig } from './compaction-config';
import { buildCompactionInterrupt } from './compaction-prompt';
import { type CompactionReply, parseCompactionReply } from './parse-compaction-reply';
import { stripTrailingToolCalls } from './strip-trailing-tool-calls';

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
  /**
   * Strip a trailing assistant `tool_calls` message. Only checkpoint 4's test turns
   * it off, to show the provider error it prevents.
   * @default true
   */
  stripTrailingToolCalls?: boolean;
  /**
   * The conversation's `cacheKey` (`conversationCacheKey(agentId, sessionId)`). With it the request
   * also carries the interrupt as its `continuation`: a client that remembers the conversation's last
   * turn sends that turn's request with the interrupt appended, which reads the provider's prompt
   * cache; any other client sends the messages above. Given only when turns are kept verbatim (the
   * messages newer than the last turn's request are among them).
   */
  cacheKey?: string;
  signal?: AbortSignal;
}

/** A finished compaction call. */
export interface CompactMessagesResult extends CompactionReply {
  request: LLMCompletionRequest;
  completion: LLMCompletion;
  model: string;
}

/**
 * Builds the summary request: shaped messages + interrupt, no tools, `compaction.model` first; with
 * a `cacheKey`, the interrupt alone as the `continuation` of the conversation's last turn.
 */
export function buildCompactionRequest(
  messages: ReadonlyArray<ChatMessage>,
  options: Omit<CompactMessagesOptions, 'llm'>,
): LLMCompletionRequest {
  const shaped = options.stripTrailingToolCalls === false ? [...messages] : stripTrailingToolCalls(messages);
  const system: SystemMessage[] = options.systemPrompt ? [{ role: 'system', content: options.systemPrompt }] : [];
  return {
    model: options.config.model ?? options.callerModel,
    messages: [...system, ...shaped, buildCompactionInterrupt(options.config, options.focus)],
    tools: null,
    maxOutputTokens: options.config.maxSummaryTokens,
    ...(options.cacheKey !== undefined
      ? { cacheKey: options.cacheKey, continuation: [buildCompactionInterrupt(options.config, options.focus)] }
      : {}),
    ...(options.signal ? { signal: options.signal } : {}),
  };
}

/**
 * Generates the retain + summary: shapes the messages, appends the
 * interrupt, calls the model without tools (with `compaction.model` when set) before the
 * `compaction.timeoutMs` deadline the call is held to, and extracts the final `<retain>` and
 * `<summary>` blocks. Neither the interrupt nor the reply is returned as
 * history: the caller builds the new history from the extracted text alone.
 * @throws LLMResponseError (`CTXKIT_LLM_RESPONSE_INVALID`) when the reply has no non-empty `<summary>` block, or one
 *   that is only an acknowledgement or an error message (`contentlessSummary`)
 * @throws LLMTimeoutError (`CTXKIT_LLM_TIMEOUT`) when the call has not settled within `compaction.timeoutMs`
 * @throws LLMRequestError / LLMTimeoutError from the client, unchanged
 */
export async function compactMessages(
  messages: ReadonlyArray<ChatMessage>,
  options: CompactMessagesOptions,
): Promise<CompactMessagesResult> {
  const request = buildCompactionRequest(messages, options);
  const completion = await completeBeforeDeadline(options.llm, request, options.config.timeoutMs);
  const text = typeof completion.text === 'string' ? completion.text : '';
  const reply = parseCompactionReply(text);
  if (!reply) {
    throw new LLMResponseError(
      text.trim() === '' ? 'the compaction reply is empty' : 'the compaction reply has no <summary>…</summary> block',
      {
        client: options.llm.name,
        model: request.model,
      },
    );
  }
  // An acknowledgement-only or error-message summary never replaces the history it would compact.
  const contentless = contentlessSummary(reply.summary);
  if (contentless)
    throw new LLMResponseError(
      `the compaction reply is refused: ${contentlessSummaryMessage(contentless, reply.summary)}`,
      { client: options.llm.name, model: request.model },
    );
  return { ...reply, request, completion, model: request.model ?? options.llm.defaultModel };
}
