import { type ChatMessage, type ILLMClient, LLMResponseError } from '@ctxkit/core';

import type { Summarizer, SummarizerInput, SummaryReceipt } from '../summarizer';
import { continuationInstruction } from './continuation-instruction';
import { escapeReservedTags, fenceTranscript } from './fence-transcript';
import { parseSummaryReply } from './parse-summary-reply';
import { droppedItems, missingItems, type RetainedItem, retainedItems } from './retained-items';
import { DEFAULT_SUMMARY_PROMPT } from './summary-prompt';
import { conversationScript, dominantScript, type TextScript } from './text-script';
import { unsupportedClaims } from './unsupported-claims';

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
  /**
   * Check each summary without another model: the identifiers and `<retain>` texts of the folded
   * turns are in it verbatim and it is written in the conversation's script; a summary that fails
   * is asked for once more with what it missed, then refused (the turns stay verbatim).
   * @default true
   */
  checkSummaries?: boolean;
  /**
   * The script to write summaries in, whatever the conversation's; absent: the script the user writes the folded turns
   * in.
   */
  script?: Exclude<TextScript, 'other'>;
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
  private readonly checks: boolean;
  private readonly script: Exclude<TextScript, 'other'> | undefined;
  lastReceipt: SummaryReceipt | undefined;

  constructor(
    private readonly client: ILLMClient,
    options: LLMSummarizerOptions,
  ) {
    this.model = options.model;
    this.name = `${client.name} (${options.model})`;
    this.prompt = options.summaryPrompt ?? DEFAULT_SUMMARY_PROMPT;
    this.maxInputTokens = options.maxInputTokens ?? 8000;
    this.timeoutMs = options.timeoutMs ?? 60000;
    this.checks = options.checkSummaries ?? true;
    this.script = options.script;
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
          `<transcript first_message="${input.firstIndex}" ` +
          `last_message="${input.firstIndex + input.messages.length - 1}">\n${transcript}\n</transcript>\n\n` +
          this.answerForm(input),
      },
    ];
  }

  /**
   * The request's `continuation` for one fold whose turns were in the conversation's last request
   * (`input.cacheKey` given): one user message with the instructions, the range to fold named by its
   * first and last message, and the previous summary; `undefined` otherwise.
   */
  buildContinuation(input: SummarizerInput): ChatMessage[] | undefined {
    if (input.cacheKey === undefined || input.messages.length === 0) return undefined;
    return [continuationInstruction(this.prompt, input.messages, input.previousSummary, this.answerForm(input))];
  }

  private answerForm(input: SummarizerInput): string {
    return (
      `Write the updated summary (at most about ${input.maxTokens} tokens) inside <summary></summary> tags` +
      (this.script ? `, in ${SCRIPT_NAMES[this.script]} (identifiers stay as written).` : '.')
    );
  }

  async summarize(input: SummarizerInput): Promise<string> {
    const messages = this.buildMessages(input);
    const continuation = this.buildContinuation(input);
    const first = await this.ask(messages, input, continuation);
    if (!this.checks) return first.summary;
    const required = retainedItems(input.messages);
    const script = this.script ?? conversationScript(input.messages);
    const problems = checkSummary(first.summary, required, script);
    const receipt = (summary: string, putBack: readonly RetainedItem[]): SummaryReceipt =>
      summaryReceipt(input, summary, required, script, putBack, putBack.length > 0 || problems.wrongScript);
    if (problems.missing.length === 0 && !problems.wrongScript) {
      this.lastReceipt = receipt(first.summary, []);
      return first.summary;
    }
    const followUp: ChatMessage[] = [
      { role: 'assistant', content: first.reply },
      {
        role: 'user',
        content: repromptText(problems.missing, problems.wrongScript ? script : undefined, this.script !== undefined),
      },
    ];
    const again = await this.ask([...messages, ...followUp], input, continuation && [...continuation, ...followUp]);
    const still = checkSummary(again.summary, required, script);
    if (still.missing.length > 0 || still.wrongScript) {
      throw new LLMResponseError(
        `the summary failed its check twice (${[
          still.missing.length > 0
            ? `left out ${still.missing
                .map((item) => JSON.stringify(item.text))
                .slice(0, 5)
                .join(', ')}${still.missing.length > 5 ? ` and ${still.missing.length - 5} more` : ''}`
            : '',
          still.wrongScript
            ? `not written in the ${this.script ? 'configured' : "conversation's"} ${script} script`
            : '',
        ]
          .filter(Boolean)
          .join('; ')}); the turns stay verbatim`,
        { client: this.client.name, model: this.model },
      );
    }
    this.lastReceipt = { ...receipt(again.summary, problems.missing), reprompted: true };
    return again.summary;
  }

  /**
   * One summary request; the reply and the summary in it. With a `continuation`, a client that
   * remembers the conversation's last request under `input.cacheKey` sends that request (its system
   * prompt, tools and messages, byte for byte) with the continuation appended; any other client
   * sends `messages`.
   */
  private async ask(
    messages: ChatMessage[],
    input: SummarizerInput,
    continuation?: ChatMessage[],
  ): Promise<{ reply: string; summary: string }> {
    const completion = await this.client.complete({
      model: this.model,
      messages,
      tools: null,
      ...(continuation !== undefined && input.cacheKey !== undefined ? { cacheKey: input.cacheKey, continuation } : {}),
      maxOutputTokens: Math.max(256, Math.ceil(input.maxTokens * 1.5)),
      temperature: 0,
      responseFormat: 'text',
      timeoutMs: this.timeoutMs,
      ...(input.signal ? { signal: input.signal } : {}),
    });
    const text = completion.text ?? '';
    if (text.trim() === '')
      throw new LLMResponseError('empty answer to a summary request', { client: this.client.name, model: this.model });
    const summary = parseSummaryReply(text);
    if (summary === undefined) {
      throw new LLMResponseError('no well-formed <summary>…</summary> block in the answer', {
        client: this.client.name,
        model: this.model,
        body: text.slice(0, 500),
      });
    }
    return { reply: text, summary };
  }
}

/** The receipt of a summary of `input` that kept `required` (after putting back `putBack`). */
export function summaryReceipt(
  input: SummarizerInput,
  summary: string,
  required: readonly RetainedItem[],
  script: TextScript | undefined,
  putBack: readonly RetainedItem[],
  reprompted: boolean,
): SummaryReceipt {
  return {
    covers: { from: input.firstIndex, to: input.firstIndex + input.messages.length },
    kept: required.map((item) => item.text),
    putBack: putBack.map((item) => item.text),
    dropped: droppedItems(summary, input.messages).map((item) => item.text),
    unsupported: unsupportedClaims(summary, input.messages, input.previousSummary),
    tokens: { folded: input.counter.countMessages(input.messages), summary: input.counter.count(summary) },
    script,
    reprompted,
  };
}

/** What a summary misses: items not in it verbatim, and whether it is in another script than the conversation. */
export function checkSummary(
  summary: string,
  required: readonly RetainedItem[],
  script: TextScript | undefined,
): { missing: RetainedItem[]; wrongScript: boolean } {
  const written = dominantScript(summary);
  return {
    missing: missingItems(summary, required),
    wrongScript: script !== undefined && written !== undefined && written !== script,
  };
}

const SCRIPT_NAMES: Record<TextScript, string> = {
  latin: 'the Latin alphabet',
  japanese: 'Japanese',
  chinese: 'Chinese',
  korean: 'Korean',
  cyrillic: 'the Cyrillic alphabet',
  arabic: 'Arabic',
  other: "the conversation's script",
};

/** The follow-up asking for what the first summary missed. */
function repromptText(missing: readonly RetainedItem[], script: TextScript | undefined, configured: boolean): string {
  const lines = ['Your summary does not pass the check. Rewrite it, keeping everything it has:'];
  if (missing.length > 0)
    lines.push(
      `- Include each of these exactly as written (they appear in the ` +
        `transcript): ${missing.map((item) => JSON.stringify(item.text)).join(', ')}.`,
    );
  if (script !== undefined)
    lines.push(
      `- Write it ` +
        `in ${SCRIPT_NAMES[script]}, ` +
        `${configured ? 'as configured for this conversation' : 'the language the user writes in'}; ` +
        `identifiers stay as written.`,
    );
  lines.push('Answer with the summary only, inside <summary></summary> tags.');
  return lines.join('\n');
}
