import { CtxkitError, type ILLMClient, LLMTimeoutError } from '@ctxkit/core';
import { completeBeforeDeadline } from '@ctxkit/core/strategy-kit';

import { buildExtractionContinuation, buildExtractionMessages, buildRetryMessage } from './extraction-prompt';
import { mergeState } from './merge-state';
import { parseJsonAnswer } from './parse-json-answer';
import type { ExtractionOutcome, ExtractionRequest, StateExtractor } from './state-extractor';

/**
 * Characters one output token can stand for, at most, with a wide margin (a typical token is 3 to 4
 * characters): a longer answer cannot have come within the output limit.
 */
const MAX_CHARS_PER_TOKEN = 16;

/** Options of {@link LLMExtractor}. */
export interface LLMExtractorOptions {
  llm: ILLMClient;
  /** Model of the extraction call. */
  model: string;
  /** Instruction replacing the built-in prompt; `null` for the built-in one. */
  instruction: string | null;
  maxOutputTokens: number;
  /**
   * Deadline of one extraction, in ms: the first call and its retry together. The extractor
   * enforces it itself (an abort signal for the client, and its own timer racing the call).
   */
  timeoutMs: number;
}

/**
 * The extraction chain: one call asks the model for the changed fields as JSON; the answer is parsed
 * (code fences and prose tolerated), merged and validated with ajv; an unusable answer is retried
 * once with the validation errors in the prompt. A second unusable answer, or a failed call, leaves
 * the state as it was (the outcome says why). Calls go without tools. The whole chain has one
 * deadline (`timeoutMs`): a call still pending when it passes fails with `LLMTimeoutError`
 * (`CTXKIT_LLM_TIMEOUT`), reported like any failed call, so a model that never answers cannot hold
 * the payload.
 */
export class LLMExtractor implements StateExtractor {
  readonly kind = 'llm' as const;
  readonly name: string;
  readonly offline: boolean;
  /** One model call per new user message; the tool results since the previous one are in its prompt. */
  readonly trigger = 'user-messages' as const;

  constructor(private readonly options: LLMExtractorOptions) {
    this.name = `llm:${options.llm.name}/${options.model}`;
    this.offline = options.llm.offline;
  }

  async extract(request: ExtractionRequest): Promise<ExtractionOutcome> {
    const messages = buildExtractionMessages(request, this.options.instruction);
    // Through a client that remembers the conversation's last request under the key, the call goes out
    // as that request with the extraction appended; the retry's messages follow it there as well.
    const continuation = request.cacheKey !== undefined ? buildExtractionContinuation(messages) : undefined;
    let lastErrors: string[] = [];
    const { llm, model, timeoutMs } = this.options;
    const deadline = performance.now() + timeoutMs;
    for (let attempt = 1; attempt <= 2; attempt++) {
      let text: string;
      try {
        const left = deadline - performance.now();
        if (left < 1) throw new LLMTimeoutError({ client: llm.name, model, timeoutMs, attempts: attempt - 1 });
        const completion = await completeBeforeDeadline(
          llm,
          {
            model,
            messages: messages.map((message) => ({ ...message }) as typeof message),
            tools: null,
            responseFormat: 'json',
            ...(continuation !== undefined
              ? {
                  cacheKey: request.cacheKey,
                  continuation: [...continuation, ...messages.slice(2)].map(
                    (message) => ({ ...message }) as typeof message,
                  ),
                }
              : {}),
            maxOutputTokens: this.options.maxOutputTokens,
            temperature: 0,
            ...(request.signal ? { signal: request.signal } : {}),
          },
          left,
        );
        text = typeof completion.text === 'string' ? completion.text : '';
      } catch (error) {
        const message = CtxkitError.isInstance(error)
          ? `${error.code}: ${error.message}`
          : error instanceof Error
            ? error.message
            : String(error);
        return { ok: false, reason: 'llm-error', errors: [message], attempts: attempt };
      }
      const maxChars = this.options.maxOutputTokens * MAX_CHARS_PER_TOKEN;
      if (text.length > maxChars) {
        // A client that does not honour the output limit (a real one stops at it): the answer is not used.
        lastErrors = [
          `/: the answer has ${text.length} characters, more than the output limit ` +
            `of ${this.options.maxOutputTokens} tokens allows (extractionMaxOutputTokens)`,
        ];
        messages.push({ role: 'assistant', content: text.slice(0, 200) }, buildRetryMessage(lastErrors));
        continue;
      }
      const parsed = parseJsonAnswer(text);
      const merged = parsed.ok
        ? mergeState(request.schema, request.state, parsed.value)
        : { ok: false as const, errors: [`/: ${parsed.error}`] };
      if (merged.ok) return { ok: true, state: merged.state, diff: merged.diff, attempts: attempt };
      lastErrors = merged.errors;
      messages.push({ role: 'assistant', content: text }, buildRetryMessage(merged.errors));
    }
    return { ok: false, reason: 'invalid-answer', errors: lastErrors, attempts: 2 };
  }
}
