import type { ChatMessage } from '../contracts/chat-message';
import type { PayloadBudget, UsageLevel } from '../contracts/llm-payload';
import type { ToolDefinition } from '../contracts/tool-definition';
import type { ITokenCounter } from '../token-counting/token-counter';
import { computeBudget, TOOL_OUTPUT_SHARE, withUsage, type BudgetOptions } from './compute-budget';
import { usageLevel } from './usage-level';

/** Options of {@link BudgetManager}: the budget inputs plus the counter that measures sections. */
export interface BudgetManagerOptions extends BudgetOptions {
  /** Counts every section (use the agent's counter, the one its strategy counts with). */
  counter: ITokenCounter;
}

/** Tokens of each section the budget formula subtracts, as measured for one call. */
export interface BudgetSections {
  /** Leading system messages (the system prompt, RAG context placed as system). */
  system: number;
  /** Tool definitions (the tokens of their JSON text). */
  tools: number;
  /** Every other message (history, memory and summary blocks, tool results). */
  history: number;
  /** The newest tool result among the history, when there is one (the context panel's "last out"). */
  lastToolOutput: number;
}

/**
 * The per-section ledger of one call (the dynamic budget):
 * `remaining = contextWindow − system − tool definitions − history − max output − 10% margin`,
 * tool output limit = `remaining × 0.6`.
 */
export interface BudgetLedger {
  /** The budget with `used` and `remaining` filled. */
  budget: PayloadBudget;
  sections: BudgetSections;
  /** `system + tools + history`. */
  used: number;
  /** The remaining budget, never negative. */
  remaining: number;
  /** `floor(remaining × 0.6)`: what one step's tool outputs may take together. */
  toolOutputLimit: number;
  /** `used / maxContextTokens`. */
  ratio: number;
  /** ok < 60% ≤ warn < 80% ≤ compact < 90% ≤ critical, of the window. */
  usageLevel: UsageLevel;
  /** True when `used` is within `budget.available` (the 90% line, less the answer's reservation). */
  fits: boolean;
}

/** What {@link BudgetManager.measure} is given: the sections before or after a strategy composed them. */
export interface BudgetInput {
  /** The system prompt, or the leading system messages. */
  system: string | ReadonlyArray<Readonly<ChatMessage>>;
  tools: ReadonlyArray<Readonly<ToolDefinition>>;
  history: ReadonlyArray<Readonly<ChatMessage>>;
}

/**
 * The budget engine: computes the formula per call from real counts (never estimates
 * when the counter is exact), exposes the per-section ledger, and gives the tool output limit that
 * the kernel's agent-side truncation (Phase 1) and the tools themselves (Phase 2) both use.
 *
 * It is stateless apart from its budget: usage levels per session are tracked by
 * {@link UsageLevelTracker}. Counts go through the counter's caches, so measuring a history that only
 * grew costs the new messages.
 * @throws RangeError for a non-positive window or a margin outside [0, 1) (from `computeBudget`)
 * @see docs/10-small-context.md
 */
export class BudgetManager {
  /** The budget every call is measured against (`used` 0). */
  readonly budget: PayloadBudget;
  readonly counter: ITokenCounter;

  /**
   * @param options the budget inputs (window, ceiling, output reservation, margin) and the counter,
   * or a budget a strategy already computed (a payload's `stats.budget`) and the counter
   */
  constructor(options: BudgetManagerOptions | { budget: PayloadBudget; counter: ITokenCounter }) {
    this.counter = options.counter;
    if ('budget' in options) {
      this.budget = withUsage({ ...options.budget }, 0);
    } else {
      const { counter: _counter, ...budgetOptions } = options;
      this.budget = computeBudget(budgetOptions);
    }
  }

  /** A manager for a budget a strategy already computed (a payload's `stats.budget`), kept exactly. */
  static forBudget(budget: PayloadBudget, counter: ITokenCounter): BudgetManager {
    return new BudgetManager({ budget, counter });
  }

  /** Tokens the payload may use: the 90% line of the window less the answer's reservation. */
  get limit(): number {
    return this.budget.available;
  }

  /** Measures the sections of one call and derives the ledger. */
  measure(input: BudgetInput): BudgetLedger {
    const system =
      typeof input.system === 'string' ? this.counter.countMessage({ role: 'system', content: input.system }) : this.counter.countMessages(input.system);
    const tools = this.counter.countTools(input.tools);
    const history = this.counter.countMessages(input.history);
    let lastToolOutput = 0;
    for (let index = input.history.length - 1; index >= 0; index--) {
      const message = input.history[index]!;
      if (message.role === 'tool') {
        lastToolOutput = this.counter.countMessage(message);
        break;
      }
    }
    return this.ledger({ system, tools, history, lastToolOutput });
  }

  /** Measures a composed payload: its leading system messages are the system section. */
  measurePayload(payload: { messages: ReadonlyArray<Readonly<ChatMessage>>; tools: ReadonlyArray<Readonly<ToolDefinition>> }): BudgetLedger {
    let split = 0;
    while (split < payload.messages.length && payload.messages[split]!.role === 'system') split++;
    return this.measure({ system: payload.messages.slice(0, split), tools: payload.tools, history: payload.messages.slice(split) });
  }

  /** The ledger for sections already counted. */
  ledger(sections: BudgetSections): BudgetLedger {
    const used = sections.system + sections.tools + sections.history;
    const budget = withUsage(this.budget, used);
    const remaining = Math.max(0, budget.remaining);
    const ceiling = budget.maxContextTokens;
    return {
      budget,
      sections: { ...sections },
      used,
      remaining,
      toolOutputLimit: this.toolOutputLimit(used),
      ratio: ceiling > 0 ? used / ceiling : 1,
      usageLevel: usageLevel(used, ceiling),
      fits: used <= budget.available,
    };
  }

  /**
   * The tool output limit when `used` tokens are taken, shared between `calls` tool calls of
   * one step (each gets an equal part). At least 0.
   */
  toolOutputLimit(used: number, calls = 1): number {
    const remaining = Math.max(0, this.budget.available - used);
    return Math.floor(Math.floor(remaining * TOOL_OUTPUT_SHARE) / Math.max(1, calls));
  }
}
