import type { PayloadBudget } from '../contracts/llm-payload';

/** The safety margin: 10% of the ceiling stays free. */
export const DEFAULT_SAFETY_MARGIN_RATIO = 0.1;
/** Share of the remaining budget a tool output may take (room for several calls per turn). */
export const TOOL_OUTPUT_SHARE = 0.6;
/** Output reservation when none is configured: 4096 tokens, at most an eighth of the ceiling. */
export const DEFAULT_RESERVE_OUTPUT_TOKENS = 4096;

/** The inputs of {@link computeBudget}. */
export interface BudgetOptions {
  /** The model's context window. */
  contextWindow: number;
  /** Hard ceiling for payload + output; overrides the window when smaller (or when set). */
  maxContextTokens?: number | null;
  /** Tokens kept for the answer; default min(4096, ceiling / 8). */
  reserveOutputTokens?: number | null;
  /** Share of the ceiling kept free; default 0.1. */
  safetyMarginRatio?: number | null;
}

/**
 * The payload budget: `available = ceiling - reserveOutputTokens - safetyMargin`, where the ceiling is
 * `maxContextTokens` when given, else the model's window. `used` and `remaining` start at 0 / available;
 * use {@link withUsage} once the payload is known.
 */
export function computeBudget(options: BudgetOptions): PayloadBudget {
  const ceiling = Math.floor(options.maxContextTokens ?? options.contextWindow);
  if (!(ceiling > 0)) throw new RangeError(`computeBudget: the context ceiling must be positive (got ${ceiling})`);
  const reserve = Math.max(
    0,
    Math.floor(options.reserveOutputTokens ?? Math.min(DEFAULT_RESERVE_OUTPUT_TOKENS, ceiling / 8)),
  );
  const ratio = options.safetyMarginRatio ?? DEFAULT_SAFETY_MARGIN_RATIO;
  if (!(ratio >= 0 && ratio < 1))
    throw new RangeError(`computeBudget: safetyMarginRatio must be in [0, 1) (got ${ratio})`);
  const margin = Math.floor(ceiling * ratio);
  const available = Math.max(0, ceiling - reserve - margin);
  return {
    contextWindow: Math.floor(options.contextWindow),
    maxContextTokens: ceiling,
    reserveOutputTokens: reserve,
    safetyMarginTokens: margin,
    available,
    used: 0,
    remaining: available,
  };
}

/** The budget with `used` set and `remaining` derived. */
export function withUsage(budget: PayloadBudget, used: number): PayloadBudget {
  return { ...budget, used, remaining: budget.available - used };
}

/**
 * The budget formula: what is left once system, tool definitions and history are in, and the tool
 * output limit (`remaining x 0.6`).
 */
export function remainingForToolOutput(
  budget: PayloadBudget,
  sectionsUsed: number,
): { remaining: number; toolOutputLimit: number } {
  const remaining = Math.max(0, budget.available - sectionsUsed);
  return { remaining, toolOutputLimit: Math.floor(remaining * TOOL_OUTPUT_SHARE) };
}
