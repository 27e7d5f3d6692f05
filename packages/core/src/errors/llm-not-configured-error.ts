import { CtxkitError } from './ctxkit-error';
import { ErrorCodes } from './error-codes';

/** A model was needed but none is configured. */
export class LLMNotConfiguredError extends CtxkitError {
  constructor(who: string) {
    super({
      code: ErrorCodes.LLM_NOT_CONFIGURED,
      category: 'user',
      message: `${who} needs a language model client, and none is configured.`,
      fix: 'Pass llm to createContextRuntime(), or set OPENAI_BASE_URL / OPENAI_API_KEY (or ANTHROPIC_API_KEY).',
      details: { who },
    });
  }
}
