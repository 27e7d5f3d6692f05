import {
  BudgetExceededError,
  buildPayload,
  computeBudget,
  contentText,
  HistoryLedger,
  safeEmit,
  selectHistoryWindow,
  truncateToFit,
  type ChatMessage,
  type HistoryWindow,
  type IContextManager,
  type LLMPayload,
  type PayloadBudget,
  type StrategyContext,
  type ToolDefinition,
} from '@ctxkit/core';
import { PinIndex } from './pin-index';
import type { PinnedMessagesConfig } from './pinned-messages-config';

/** What the pinned block holds. */
interface PinnedBlock {
  message: ChatMessage | undefined;
  tokens: number;
  indexes: number[];
}

/**
 * Pinned messages + sliding window: user or assistant messages marked important (a marker such as
 * `📌` or `[pin]` in their text) stay in a `<pinned_messages>` block right after the system prompt
 * however old they are, newest pins first within `maxPinnedShare` of the room; the rest of the budget
 * goes to the newest history by whole tool-call groups (core's `selectHistoryWindow`). What the
 * standard sliding window would forget first — an early "my booking code is X, don't lose it" — is
 * what this one keeps.
 */
export class PinnedMessagesStrategy implements IContextManager {
  private readonly ledger: HistoryLedger;
  private readonly pins: PinIndex;
  private readonly budget: PayloadBudget;

  constructor(
    private readonly config: PinnedMessagesConfig,
    private readonly context: StrategyContext,
  ) {
    this.ledger = new HistoryLedger(context.counter);
    this.pins = new PinIndex(config.pinMarkers);
    const contextWindow = config.maxContextTokens ?? context.models.get(config.model).contextWindow;
    this.budget = computeBudget({
      contextWindow,
      maxContextTokens: config.maxContextTokens,
      reserveOutputTokens: config.reserveOutputTokens,
      safetyMarginRatio: config.safetyMarginRatio,
    });
  }

  async composePayload(systemPrompt: string, history: ChatMessage[], tools: ToolDefinition[], ragContext?: string): Promise<LLMPayload> {
    const pinned = this.pins.update(history);
    const counter = this.context.counter;
    const system: ChatMessage[] = [{ role: 'system', content: systemPrompt }];
    const systemTokens = counter.countMessages(system);
    const toolTokens = counter.countTools(tools);
    if (systemTokens + toolTokens > this.budget.available) {
      throw new BudgetExceededError(this.context.strategyId, { available: this.budget.available, required: systemTokens + toolTokens, sections: { system: systemTokens, tools: toolTokens } });
    }
    let room = this.budget.available - systemTokens - toolTokens;
    const dynamic: ChatMessage[] = [];
    if (ragContext) {
      const rag: ChatMessage = { role: 'system', content: ragContext };
      if (counter.countMessage(rag) <= Math.floor(room / 4)) dynamic.push(rag);
      room -= counter.countMessages(dynamic);
    }

    // Two passes: pins that the recent window keeps anyway leave the block, which frees room for the window.
    const cap = Math.floor(room * this.config.maxPinnedShare);
    let block = this.pinnedBlock(history, pinned, history.length, cap);
    let window = selectHistoryWindow({ history, budgetTokens: room - block.tokens, counter, ledger: this.ledger, strategyId: this.context.strategyId });
    const outside = this.pinnedBlock(history, pinned, window.fromIndex, cap);
    if (outside.tokens < block.tokens) {
      block = outside;
      window = this.widen(history, room - block.tokens, window);
    }

    const turn = this.pins.userMessages;
    const payload = buildPayload({
      strategyId: this.context.strategyId,
      model: this.config.model,
      counter,
      budget: this.budget,
      sections: { system, tools, dynamic, memory: block.message ? [block.message] : [], history: window },
      historyLength: history.length,
      historyInputTokens: () => this.ledger.totalTokens(history),
      otherInputTokens: systemTokens + toolTokens + (ragContext ? counter.count(ragContext) + 4 : 0),
      extra: { pinnedIndexes: block.indexes, pinnedMessages: pinned.length },
    });
    const base = { agentId: this.context.agentId, sessionId: this.context.sessionId, strategyId: this.context.strategyId, turn };
    const dropped = payload.stats.reductions.filter((record) => record.action === 'dropped' && record.messages > 0);
    if (dropped.length > 0) safeEmit(this.context.events, 'history-trim', { ...base, reductions: dropped, droppedMessages: window.droppedMessages });
    const truncated = payload.stats.reductions.filter((record) => record.action === 'truncated');
    if (truncated.length > 0) safeEmit(this.context.events, 'tool-output-trim', { ...base, reductions: truncated });
    safeEmit(this.context.events, 'payload-composed', { ...base, stats: payload.stats });
    return payload;
  }

  async onTurnComplete(newHistory: ChatMessage[]): Promise<void> {
    this.pins.update(newHistory);
  }

  /** The recent window again with more room (the first pass reserved room for pins it then kept). */
  private widen(history: ChatMessage[], budgetTokens: number, previous: HistoryWindow): HistoryWindow {
    const wider = selectHistoryWindow({ history, budgetTokens, counter: this.context.counter, ledger: this.ledger, strategyId: this.context.strategyId });
    return wider.fromIndex <= previous.fromIndex ? wider : previous;
  }

  /**
   * The `<pinned_messages>` block for pins older than `before`: newest pins first while they fit the
   * cap (each pin cut to half the cap at most), shown oldest first with their history index.
   */
  private pinnedBlock(history: ReadonlyArray<ChatMessage>, pinned: readonly number[], before: number, cap: number): PinnedBlock {
    const counter = this.context.counter;
    const lines: Array<{ index: number; line: string }> = [];
    let tokens = counter.count('<pinned_messages>\n</pinned_messages>') + 6;
    for (let at = pinned.length - 1; at >= 0; at--) {
      const index = pinned[at]!;
      if (index >= before) continue;
      const message = history[index]!;
      const text = truncateToFit(contentText(message.content), { kind: 'head', maxTokens: Math.max(16, Math.floor(cap / 2)), counter }).text;
      const line = `[${message.role}, message ${index}] ${text}`;
      const lineTokens = counter.count(line) + 1;
      if (tokens + lineTokens > cap) break;
      tokens += lineTokens;
      lines.unshift({ index, line });
    }
    if (lines.length === 0) return { message: undefined, tokens: 0, indexes: [] };
    const message: ChatMessage = { role: 'system', content: `<pinned_messages>\n${lines.map((entry) => entry.line).join('\n')}\n</pinned_messages>` };
    return { message, tokens: counter.countMessage(message), indexes: lines.map((entry) => entry.index) };
  }
}
