import { CtxkitError, type LLMClient } from '@ctxkit/core';
import { mergeState } from './merge-state';
import { parseJsonAnswer } from './parse-json-answer';
import { buildExtractionMessages, buildRetryMessage } from './extraction-prompt';
import type { ExtractionOutcome, ExtractionRequest, StateExtractor } from './state-extractor';

/** Options of {@link LLMExtractor}. */
export interface LLMExtractorOptions {
  llm: LLMClient;
  /** Model of the extraction call. */
  model: string;
  /** Instruction replacing the built-in prompt; `null` for the built-in one. */
  instruction: string | null;
  maxOutputTokens: number;
}

/**
 * The extraction chain: one call asks the model for the changed fields as JSON; the answer is parsed
 * (code fences and prose tolerated), merged and validated with ajv; an unusable answer is retried
 * once with the validation errors in the prompt. A second unusable answer, or a failed call, leaves
 * the state as it was (the outcome says why). Calls go without tools.
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
    let lastErrors: string[] = [];
    for (let attempt = 1; attempt <= 2; attempt++) {
      let text: string;
      try {
        const completion = await this.options.llm.complete({
          model: this.options.model,
          messages: messages.map((message) => ({ ...message }) as typeof message),
          tools: null,
          responseFormat: 'json',
          maxOutputTokens: this.options.maxOutputTokens,
          temperature: 0,
        });
        text = completion.text;
      } catch (error) {
        const message = CtxkitError.isInstance(error) ? `${error.code}: ${error.message}` : error instanceof Error ? error.message : String(error);
        return { ok: false, reason: 'llm-error', errors: [message], attempts: attempt };
      }
      const parsed = parseJsonAnswer(text);
      const merged = parsed.ok ? mergeState(request.schema, request.state, parsed.value) : { ok: false as const, errors: [`/: ${parsed.error}`] };
      if (merged.ok) return { ok: true, state: merged.state, diff: merged.diff, attempts: attempt };
      lastErrors = merged.errors;
      messages.push({ role: 'assistant', content: text }, buildRetryMessage(merged.errors));
    }
    return { ok: false, reason: 'invalid-answer', errors: lastErrors, attempts: 2 };
  }
}
