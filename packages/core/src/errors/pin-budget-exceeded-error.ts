import { CtxkitError } from './ctxkit-error';
import { ErrorCodes } from './error-codes';

/** One pin as a {@link PinBudgetExceededError} names it. */
export interface PinCost {
  id: string;
  label: string;
  /** Tokens of the pin's entry in the pinned block. */
  tokens: number;
}

/** What did not fit: the pinned block against its share of the budget. */
export interface PinShortfall {
  agentId: string;
  sessionId: string;
  strategyId: string;
  /** The pins' share of the available budget (the agent manifest's `pinShare`). */
  pinShare: number;
  /** The strategy's available budget (tokens the payload may use). */
  available: number;
  /** Tokens the pins may take: `floor(pinShare × available)`. */
  allowance: number;
  /** Tokens the pinned block needs. */
  required: number;
  pins: PinCost[];
}

/**
 * A session's pins alone take more than their share of the budget (`pinShare` of the strategy's
 * available budget). Thrown by `composePayload` before the strategy runs, and by `pin(text)` for the
 * text that would take the pins past it; nothing is sent and nothing is pinned.
 */
export class PinBudgetExceededError extends CtxkitError {
  readonly shortfall: PinShortfall;
  constructor(shortfall: PinShortfall) {
    const list = shortfall.pins.map((pin) => `${pin.id} "${pin.label}" ${pin.tokens} tokens`).join(', ');
    const largest = shortfall.pins.reduce<PinCost | undefined>(
      (top, pin) => (top === undefined || pin.tokens > top.tokens ? pin : top),
      undefined,
    );
    super({
      code: ErrorCodes.PIN_BUDGET_EXCEEDED,
      category: 'user',
      message:
        `Session "${shortfall.sessionId}" of agent "${shortfall.agentId}": the pins ` +
        `need ${shortfall.required} tokens but their share is ${shortfall.allowance} ` +
        `(pinShare ${shortfall.pinShare} of ${shortfall.available} available to ${shortfall.strategyId}). ` +
        `Pins: ${list}.`,
      fix:
        `Unpin what is no longer needed (${largest ? `session.unpin("${largest.id}")` : 'session.unpin(id)'}), ` +
        `pin shorter texts, or raise pinShare in the agent manifest (or the budget: maxContextTokens).`,
      details: { ...shortfall, pins: shortfall.pins.map((pin) => ({ ...pin })) },
    });
    this.shortfall = shortfall;
  }
}
