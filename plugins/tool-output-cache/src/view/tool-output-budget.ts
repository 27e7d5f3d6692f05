import type { ChatMessage } from '@ctxkit/core';

/** One tool output as the tool output budget sees it. */
export interface BudgetedOutput {
  /** Its tokens as the view shows it. */
  budgetTokens: number;
  /** True when the budget may replace it by its (smaller) `[tool output trimmed; ref=…]` placeholder. */
  trimmable: boolean;
}

/** What {@link toolOutputBudgetCut} looks at. */
export interface ToolOutputBudgetInput {
  /** The view laid over the caller's history (roles are all the budget reads of it). */
  messages: ReadonlyArray<ChatMessage>;
  /** First position the view sends. */
  from: number;
  /** Where the current turn starts: its outputs always count and are never replaced. */
  protectFrom: number;
  /** Token budget of the tool outputs. */
  budgetTokens: number;
  /** The tool output at a position (made when first asked for: a promise only then). */
  output(position: number): BudgetedOutput | Promise<BudgetedOutput>;
}

/**
 * The tool output budget, newest first: the current turn's outputs always count; older outputs are
 * kept as shown, newest first, while the outputs kept so far fit the budget together. The first
 * (newest) output that can be replaced and does not fit is the cut: it and every older output that
 * can be replaced become placeholders. Returns the cut's position, or -1 when every output fits.
 * Looks only at the outputs it keeps and the cut: a long history costs no more than a short one.
 */
export async function toolOutputBudgetCut(input: ToolOutputBudgetInput): Promise<number> {
  const { messages, from } = input;
  const protectFrom = Math.max(from, Math.min(input.protectFrom, messages.length));
  let total = 0;
  for (let position = messages.length - 1; position >= protectFrom; position--) {
    if (messages[position]!.role !== 'tool') continue;
    const made = input.output(position);
    total += (made instanceof Promise ? await made : made).budgetTokens;
  }
  for (let position = protectFrom - 1; position >= from; position--) {
    if (messages[position]!.role !== 'tool') continue;
    const made = input.output(position);
    const output = made instanceof Promise ? await made : made;
    if (output.trimmable && total + output.budgetTokens > input.budgetTokens) return position;
    total += output.budgetTokens;
  }
  return -1;
}

/** Lower and upper bound of the derived tool output budget, and its share of the context window. */
export const TOOL_OUTPUT_BUDGET_BOUNDS = Object.freeze({ share: 0.25, min: 20_000, max: 60_000 });

/**
 * The token budget of all tool outputs: `contextBudgetTokens` when set, else
 * `clamp(contextWindow × 0.25, 20 000, 60 000)`.
 */
export function toolOutputBudgetTokens(contextBudgetTokens: number | null, contextWindow: number): number {
  if (contextBudgetTokens !== null) return Math.max(0, Math.floor(contextBudgetTokens));
  const { share, min, max } = TOOL_OUTPUT_BUDGET_BOUNDS;
  return Math.min(max, Math.max(min, Math.floor(contextWindow * share)));
}
