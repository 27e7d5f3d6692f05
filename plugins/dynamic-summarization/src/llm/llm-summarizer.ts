import { LLMResponseError, type ChatMessage, type LLMClient } from '@ctxkit/core';
import type { Summarizer, SummarizerInput } from '../summarizer';
import { escapeReservedTags, fenceTranscript } from './fence-transcript';
import { parseSummaryReply } from './parse-summary-reply';
import { DEFAULT_SUMMARY_PROMPT } from './summary-prompt';

/** Options of {@link LLMSummarizer}. */
export interface LLMSummarizerOptions {
  /** The model asked for summaries (`compressionModel`, else the agent's model). */
  model: string;
  /** Instructions replacing {@link DEFAULT_SUMMARY_PROMPT}. */
  summaryPrompt?: string | null;
  /** Cap on the transcript sent to the summarizer, in tokens. @default 8000 */
  maxInputTokens?: number;
  /** Timeout of one summary request. @default 60000 */
  timeoutMs?: number;
}

/**
 * The LLM summarizer: asks the client (without tools) for a sectioned continuation summary inside
 * `<summary>` tags, folding the previous summary into it. The transcript is fenced and its reserved
 * tags escaped, so a tool output containing `</summary>` cannot end the block; the last well-formed
 * `<summary>` block of the reply is taken.
 *
 * @throws LLMRequestError / LLMTimeoutError from the client (`CTXKIT_LLM_REQUEST_FAILED`, `CTXKIT_LLM_TIMEOUT`)
 * @throws LLMResponseError (`CTXKIT_LLM_RESPONSE_INVALID`) for an empty answer or one without a `<summary>` block
 */
export class LLMSummarizer implements Summarizer {
  readonly offline = false;
  readonly name: string;
  readonly model: string;
  private readonly prompt: string;
  private readonly maxInputTokens: number;
  private readonly timeoutMs: number;

  constructor(
    private readonly client: LLMClient,
    options: LLMSummarizerOptions,
  ) {
    this.model = options.model;
    this.name = `${client.name} (${options.model})`;
    this.prompt = options.summaryPrompt ?? DEFAULT_SUMMARY_PROMPT;
    this.maxInputTokens = options.maxInputTokens ?? 8000;
    this.timeoutMs = options.timeoutMs ?? 60000;
  }

  /** The request messages for one fold (exposed for tests and docs). */
  buildMessages(input: SummarizerInput): ChatMessage[] {
    const transcript = fenceTranscript(input.messages, input.firstIndex, this.maxInputTokens, input.counter);
    const previous = input.previousSummary ? escapeReservedTags(input.previousSummary) : '(none yet)';
    return [
      { role: 'system', content: this.prompt },
      {
        role: 'user',
        content:
          `<previous_summary>\n${previous}\n</previous_summary>\n\n` +
          `<transcript first_message="${input.firstIndex}" last_message="${input.firstIndex + input.messages.length - 1}">\n${transcript}\n</transcript>\n\n` +
          `Write the updated summary (at most about ${input.maxTokens} tokens) inside <summary></summary> tags.`,
      },
    ];
  }

  async summarize(input: SummarizerInput): Promise<string> {
    const completion = await this.client.complete({
      model: this.model,
      messages: this.buildMessages(input),
      tools: null,
      maxOutputTokens: Math.max(256, Math.ceil(input.maxTokens * 1.5)),
      temperature: 0,
      responseFormat: 'text',
      timeoutMs: this.timeoutMs,
      ...(input.signal ? { signal: input.signal } : {}),
    });
    const text = completion.text ?? '';
    if (text.trim() === '') throw new LLMResponseError('empty answer to a summary request', { client: this.client.name, model: this.model });
    const summary = parseSummaryReply(text);
    if (summary === undefined) {
      throw new LLMResponseError('no well-formed <summary>…</summary> block in the answer', {
        client: this.client.name,
        model: this.model,
        body: text.slice(0, 500),
      });
    }
    return summary;
  }
}
