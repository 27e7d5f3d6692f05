import { CtxkitError } from './ctxkit-error';
import { ErrorCodes } from './error-codes';

/** What did not fit, per section. */
export interface BudgetShortfall {
  available: number;
  required: number;
  sections: Record<string, number>;
}

/**
 * The parts that may not be dropped (system prompt and tool definitions, or the pre-send check's
 * last resort) do not fit the budget. composePayload rejects with this instead of sending an
 * overflowing payload.
 */
export class BudgetExceededError extends CtxkitError {
  readonly shortfall: BudgetShortfall;
  constructor(strategyId: string, shortfall: BudgetShortfall, what = 'system prompt + tool definitions') {
    super({
      code: ErrorCodes.BUDGET_EXCEEDED,
      category: 'user',
      message:
        `${strategyId}: ${what} need ${shortfall.required} tokens but the budget ` +
        `allows ${shortfall.available} (${Object.entries(shortfall.sections)
          .map(([name, tokens]) => `${name} ${tokens}`)
          .join(', ')}).`,
      fix:
        'Raise maxContextTokens (or use a model with a larger window), lower reserveOutputTokens, shorten the ' +
        'system prompt, or send fewer tools (a compact prompt and an essential tool subset in the manifest).',
      details: { strategyId, ...shortfall },
    });
    this.shortfall = shortfall;
  }
}
