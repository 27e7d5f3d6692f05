import {
  type ChatMessage,
  CtxkitError,
  ErrorCodes,
  type ILLMClient,
  type LLMCompletionRequest,
  LLMResponseError,
  providerCompactionItem,
  providerCompactionText,
} from '@ctxkit/core';
import { completeBeforeDeadline } from '@ctxkit/core/strategy-kit';

import type { Summarizer, SummarizerInput, SummaryReceipt } from '../summarizer';
import { escapeReservedTags } from './fence-transcript';
import { checkSummary, type LLMSummarizer, summaryReceipt } from './llm-summarizer';
import { parseSummaryReply } from './parse-summary-reply';
import { retainedItems } from './retained-items';
import { conversationScript, type TextScript } from './text-script';

/** Options of {@link ProviderCompactionSummarizer}. */
export interface ProviderCompactionSummarizerOptions {
  /** The model asked (the agent's, or `compressionModel`). */
  model: string;
  /** The summary instructions, sent as the compaction's instructions. */
  prompt: string;
  /** Check the summary as the LLM summarizer does; a summary that fails goes to the fallback. @default true */
  checkSummaries?: boolean;
  script?: Exclude<TextScript, 'other'>;
  /** The fold's deadline (`summaryTimeoutMs`): the provider gets half of it, the fallback the rest. */
  timeoutMs: number;
}

/** Why the last fold did not use the provider's compaction. */
export interface ProviderFallback {
  code: string;
  message: string;
}

/**
 * Summaries written by the provider's own compaction (Anthropic's, whose summary is readable text):
 * the fold's request is the conversation as the last request sent it (its system messages, the
 * previous summary block, the turns to fold, its tools, under the conversation's `cacheKey`), with
 * `providerCompaction` and the summary prompt as its instructions. The compaction's text (the last
 * `<summary>` block in it, else all of it) is checked like the LLM summarizer's. A failed request, an
 * answer without a readable compaction, a summary that fails its check, or a fold with no request to
 * start from goes to `fallback` (the LLM summarizer, which asks with its own prompt and may re-prompt)
 * in the same fold; the provider is not asked again for it.
 */
export class ProviderCompactionSummarizer implements Summarizer {
  readonly offline = false;
  readonly name: string;
  readonly model: string;
  lastReceipt: SummaryReceipt | undefined;
  /** Who wrote the last summary. */
  lastEngine: 'provider' | 'ctxkit' | undefined;
  /** Why the last fold went to the fallback (`null` when it did not). */
  lastFallback: ProviderFallback | null = null;

  constructor(
    private readonly client: ILLMClient,
    private readonly fallback: LLMSummarizer,
    private readonly options: ProviderCompactionSummarizerOptions,
  ) {
    this.model = options.model;
    this.name = `${client.name} (${options.model}, provider compaction)`;
  }

  async summarize(input: SummarizerInput): Promise<string> {
    try {
      const summary = await this.compact(input);
      this.lastEngine = 'provider';
      this.lastFallback = null;
      return summary;
    } catch (error) {
      if (input.signal?.aborted) throw error;
      this.lastFallback = {
        code: CtxkitError.isInstance(error) ? error.code : ErrorCodes.STRATEGY_ERROR,
        message: error instanceof Error ? error.message : String(error),
      };
      const summary = await this.fallback.summarize(input);
      this.lastEngine = 'ctxkit';
      this.lastReceipt = this.fallback.lastReceipt;
      return summary;
    }
  }

  /** The compaction request of one fold (exposed for tests). */
  buildRequest(input: SummarizerInput): LLMCompletionRequest {
    const conversation = input.conversation;
    const previous: ChatMessage[] =
      input.previousSummary && !conversation?.leadHasSummary
        ? [
            {
              role: 'user',
              content: `<previous_summary>\n${escapeReservedTags(input.previousSummary)}\n</previous_summary>`,
            },
          ]
        : [];
    const instructions =
      `${this.options.prompt}\n\nA record of the earlier conversation (the previous summary) may open the ` +
      `conversation: fold it in. ` +
      `Write at most about ${input.maxTokens} tokens` +
      (this.options.script ? `, in ${this.options.script} script (identifiers stay as written).` : '.');
    return {
      model: this.model,
      messages: [...(conversation?.lead ?? []), ...previous, ...input.messages],
      tools: conversation && conversation.tools.length > 0 ? conversation.tools : null,
      maxOutputTokens: Math.max(256, Math.ceil(input.maxTokens * 1.5)),
      providerCompaction: { instructions },
      ...(input.cacheKey !== undefined ? { cacheKey: input.cacheKey } : {}),
      ...(input.signal ? { signal: input.signal } : {}),
    };
  }

  private async compact(input: SummarizerInput): Promise<string> {
    const details = { client: this.client.name, model: this.model };
    if (input.conversation === undefined)
      throw new LLMResponseError('the turns to fold were not all in the last request a model received', details);
    const completion = await completeBeforeDeadline(
      this.client,
      this.buildRequest(input),
      Math.max(1, Math.floor(this.options.timeoutMs / 2)),
    );
    const item = completion.message ? providerCompactionItem(completion.message) : undefined;
    const text = item ? providerCompactionText(item) : undefined;
    if (text === undefined) throw new LLMResponseError('the provider answered without a readable compaction', details);
    const summary = (parseSummaryReply(text) ?? text).trim();
    if (summary === '') throw new LLMResponseError("the provider's compaction is empty", details);
    const required = retainedItems(input.messages);
    const script = this.options.script ?? conversationScript(input.messages);
    if (this.options.checkSummaries ?? true) {
      const problems = checkSummary(summary, required, script);
      if (problems.missing.length > 0 || problems.wrongScript) {
        throw new LLMResponseError(
          `the provider's compaction failed its check (${
            problems.missing.length > 0
              ? `left out ${problems.missing
                  .slice(0, 5)
                  .map((item) => JSON.stringify(item.text))
                  .join(', ')}`
              : `not written in the ${script} script`
          })`,
          details,
        );
      }
    }
    this.lastReceipt = summaryReceipt(input, summary, required, script, [], false);
    return summary;
  }
}
