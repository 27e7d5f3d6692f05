import { withUsage } from '../budget/compute-budget';
import { usageLevel } from '../budget/usage-level';
import type { ChatMessage } from '../contracts/chat-message';
import type { LLMPayload, PayloadBudget, PayloadStats, ReductionRecord, SectionTokens } from '../contracts/llm-payload';
import type { ToolDefinition } from '../contracts/tool-definition';
import type { ITokenCounter } from '../token-counting/token-counter';
import type { HistoryWindow } from './select-history-window';

/** The sections of a payload, in priority order: each strategy fills the ones it has. */
export interface PayloadSections {
  /** The system block, never dropped or altered. */
  system: ChatMessage[];
  /** Tool definitions, always complete. */
  tools: ToolDefinition[];
  /** Dynamic context (task goal, RAG), placed right after the system block. */
  dynamic?: ChatMessage[];
  /** Memory / summary / state block, placed before the recent history. */
  memory?: ChatMessage[];
  /** Memory placed right after the system block, before the dynamic context (a running summary). */
  leadingMemory?: ChatMessage[];
  /** The recent history that fits (from selectHistoryWindow). */
  history: HistoryWindow;
}

/** Options of {@link buildPayload}. */
export interface BuildPayloadOptions {
  strategyId: string;
  model: string;
  counter: ITokenCounter;
  /** From `computeBudget`; `used` and `remaining` are filled here. */
  budget: PayloadBudget;
  sections: PayloadSections;
  /** Length of the caller's history. */
  historyLength: number;
  /**
   * Tokens of the whole history the strategy was given, or a function computing them. A function is
   * called only when `stats.input_tokens` (or `compress_ratio`) is first read, so that composing a
   * payload never counts dropped history it does not need.
   */
  historyInputTokens: number | (() => number);
  /** Tokens of inputs other than the sections (e.g. the untruncated RAG text); defaults to the sections. */
  otherInputTokens?: number;
  /** Reductions besides the history window's (e.g. a RAG block truncated, a summary). */
  reductions?: ReductionRecord[];
  /**
   * Tokens of the memory sections (`memory` and `leadingMemory`) when the caller has counted them
   * already, message by message with `counter`: they are not counted again.
   */
  memoryTokens?: number;
  extra?: Record<string, unknown>;
  /**
   * Place the memory block right after the system block, before the dynamic context (a running
   * summary that the summarization strategy puts right after the system prompt). @default false
   */
  memoryFirst?: boolean;
}

/**
 * Assembles the final {@link LLMPayload} from its sections and fills complete {@link PayloadStats}
 * the same way for every strategy: tokens per section, budget with usage, reductions as ranges,
 * counts by action, usage level (used against the ceiling, `maxContextTokens` or the window) and the counter's meta.
 * Message order: system, dynamic, memory, history (system, memory, dynamic, history with `memoryFirst`). The sections'
 * arrays are copied, never kept.
 */
export function buildPayload(options: BuildPayloadOptions): LLMPayload {
  const { counter, sections } = options;
  const dynamic = sections.dynamic ?? [];
  const memory = sections.memory ?? [];
  const leading = sections.leadingMemory ?? [];
  const sectionTokens: SectionTokens = {
    system: counter.countMessages(sections.system),
    tools: counter.countTools(sections.tools),
    dynamic: counter.countMessages(dynamic),
    memory: options.memoryTokens ?? counter.countMessages(memory) + counter.countMessages(leading),
    history: sections.history.tokens,
  };
  const used =
    sectionTokens.system + sectionTokens.tools + sectionTokens.dynamic + sectionTokens.memory + sectionTokens.history;
  // concat copies the arrays whole (a spread walks them one element at a time).
  const messages: ChatMessage[] = options.memoryFirst
    ? sections.system.concat(leading, memory, dynamic, sections.history.messages)
    : sections.system.concat(leading, dynamic, memory, sections.history.messages);
  const reductions = [...(options.reductions ?? []), ...sections.history.reductions].sort((a, b) => a.from - b.from);
  const sum = (...actions: string[]) =>
    reductions.reduce((total, record) => (actions.includes(record.action) ? total + record.messages : total), 0);
  const otherInput =
    options.otherInputTokens ??
    sectionTokens.system + sectionTokens.tools + sectionTokens.dynamic + sectionTokens.memory;

  const stats = {
    strategyId: options.strategyId,
    model: options.model,
    output_tokens: used,
    budget: withUsage(options.budget, used),
    sections: sectionTokens,
    messages: { input: options.historyLength, output: messages.length },
    reductions,
    dropped: sum('dropped'),
    trimmed: sum('trimmed', 'truncated', 'micro-compacted'),
    summarized: sum('summarized', 'extracted'),
    compacted: sum('compacted'),
    usageLevel: usageLevel(used, options.budget.maxContextTokens),
    counter: counter.meta(),
  } as Omit<PayloadStats, 'input_tokens' | 'compress_ratio'> as PayloadStats;
  if (options.extra) stats.extra = options.extra;

  let input: number | undefined =
    typeof options.historyInputTokens === 'number' ? options.historyInputTokens + otherInput : undefined;
  const historyInput = options.historyInputTokens;
  const inputTokens = (): number => {
    if (input === undefined) input = (typeof historyInput === 'function' ? historyInput() : historyInput) + otherInput;
    return input;
  };
  Object.defineProperty(stats, 'input_tokens', { enumerable: true, configurable: true, get: inputTokens });
  Object.defineProperty(stats, 'compress_ratio', {
    enumerable: true,
    configurable: true,
    get: () => {
      const total = inputTokens();
      return total === 0 ? 1.0 : used / total;
    },
  });
  return { messages, tools: sections.tools.slice(), stats };
}
