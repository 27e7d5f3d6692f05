import type { ChatMessage } from '@ctxkit/core';

/** One tool output as the tool output budget sees it. */
export interface BudgetedOutput {
  /** Its tokens as the view shows it. */
  budgetTokens: number;
  /** True when the budget may replace it by its (smaller) placeholder. */
  trimmable: boolean;
}

export interface ToolOutputBudgetInput {
  /** The view laid over the caller's history (only roles are read). */
  messages: ReadonlyArray<ChatMessage>;
  /** First position the view sends. */
  from: number;
  /** Where the current turn starts: its outputs always count and are never replaced. */
  protectFrom: number;
  budgetTokens: number;
  /** The tool output at a position (a promise only when it is made now). */
  output(position: number): BudgetedOutput | Promise<BudgetedOutput>;
}

/**
 * The tool output budget, newest first: the current turn's outputs always count; older outputs are kept as shown while
 * the outputs kept so far fit together. The newest replaceable output that does not fit is the cut (returned; -1:
 * none): it and every older replaceable one become placeholders. Looks only at the outputs it keeps and the cut.
 */
export async function toolOutputBudgetCut(input: ToolOutputBudgetInput): Promise<number> {
  const { messages, from } = input;
  const protectFrom = Math.max(from, Math.min(input.protectFrom, messages.length));
  let total = 0;
  for (let position = messages.length - 1; position >= from; position--) {
    if (messages[position]!.role !== 'tool') continue;
    const made = input.output(position);
    const output = made instanceof Promise ? await made : made;
    if (position < protectFrom && output.trimmable && total + output.budgetTokens > input.budgetTokens) return position;
    total += output.budgetTokens;
  }
  return -1;
}

/** The derived tool output budget's share of the context window, and its bounds. */
export const TOOL_OUTPUT_BUDGET_BOUNDS = Object.freeze({ share: 0.25, min: 20_000, max: 60_000 });

/** The tool output budget: `contextBudgetTokens` when set, else `clamp(contextWindow × 0.25, 20 000, 60 000)`. */
export function toolOutputBudgetTokens(contextBudgetTokens: number | null, contextWindow: number): number {
  if (contextBudgetTokens !== null) return Math.max(0, Math.floor(contextBudgetTokens));
  const { share, min, max } = TOOL_OUTPUT_BUDGET_BOUNDS;
  return Math.min(max, Math.max(min, Math.floor(contextWindow * share)));
}
