import type { ChatMessage } from '@ctxkit/core';

/** One tool output as the budget sees it: its tokens as shown, and whether its (smaller) placeholder may replace it. */
export interface BudgetedOutput {
  budgetTokens: number;
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
 * The budget's cut (-1: none), newest first: older outputs are kept while those kept so far fit together beside the
 * current turn's; the newest replaceable one that does not fit is the cut, and it and every older replaceable one
 * become placeholders. Looks only at the outputs it keeps and the cut.
 */
export async function toolOutputBudgetCut(input: ToolOutputBudgetInput): Promise<number> {
  const { messages, from, protectFrom } = input;
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

/** The tool output budget: `contextBudgetTokens` when set, else `clamp(contextWindow × 0.25, 20 000, 60 000)`. */
export function toolOutputBudgetTokens(contextBudgetTokens: number | null, contextWindow: number): number {
  if (contextBudgetTokens !== null) return Math.max(0, Math.floor(contextBudgetTokens));
  return Math.min(60_000, Math.max(20_000, Math.floor(contextWindow * 0.25)));
}
