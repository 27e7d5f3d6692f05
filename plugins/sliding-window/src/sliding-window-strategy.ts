import {
  BudgetExceededError,
  buildPayload,
  computeBudget,
  DisposedError,
  HistoryValidationError,
  HistoryLedger,
  safeEmit,
  selectHistoryWindow,
  truncateToFit,
  type ChatMessage,
  type ContextManagerCapabilities,
  type ContextManagerContract,
  type LLMPayload,
  type PayloadBudget,
  type ReductionRecord,
  type StrategyContext,
  type TokenCounter,
  type ToolDefinition,
  type UsageLevel,
} from '@ctxkit/core';
import { SLIDING_WINDOW_DEFAULTS, SLIDING_WINDOW_STRATEGY_ID, type SlidingWindowConfig } from './sliding-window-config';

interface LastCall {
  history: ReadonlyArray<ChatMessage>;
  length: number;
  last: ChatMessage | undefined;
  systemPrompt: string;
  tools: ReadonlyArray<ToolDefinition>;
  ragContext: string | undefined;
  payload: LLMPayload;
}

/**
 * The sliding window (seed 002 strategy A, the default): system prompt + tool definitions + dynamic
 * context (RAG) are counted first; the rest of the budget goes to the newest history, by whole
 * tool-call groups, through core's `selectHistoryWindow`. Older history is dropped and reported; the
 * current turn is truncated (tool outputs head + tail, then the newest user message) rather than
 * dropped; orphan tool results and dangling calls are never sent and are reported.
 *
 * One instance serves one conversation (agent + session). Per turn it counts only new messages (a
 * ledger over the history), and a repeat call with nothing new returns the previous payload.
 */
export class SlidingWindowStrategy implements ContextManagerContract, ContextManagerCapabilities {
  private readonly config: SlidingWindowConfig;
  private readonly counter: TokenCounter;
  private readonly ledger: HistoryLedger;
  private budgetCache: PayloadBudget | undefined;
  private readonly systemMessages = new Map<string, ChatMessage>();
  private level: UsageLevel = 'ok';
  private lastCall: LastCall | undefined;
  private turnCount = 0;
  private turnLength = 0;
  private turnLast: ChatMessage | undefined;
  private disposed = false;
  /** The id this instance runs under (the plugin id, or the id a host registered it with). */
  private readonly strategyId: string;

  constructor(config: Partial<SlidingWindowConfig>, private readonly context: StrategyContext) {
    this.config = { ...SLIDING_WINDOW_DEFAULTS, ...config };
    this.strategyId = context.strategyId || SLIDING_WINDOW_STRATEGY_ID;
    this.counter = this.config.model === context.model ? context.counter : context.counterFor(this.config.model);
    this.ledger = new HistoryLedger(this.counter);
  }

  /** The budget of every payload: from `maxContextTokens`, else the model registry's window. */
  budget(): PayloadBudget {
    if (this.budgetCache === undefined) {
      const { model, maxContextTokens, reserveOutputTokens, safetyMarginRatio } = this.config;
      const contextWindow = maxContextTokens === null ? this.context.models.get(model).contextWindow : this.context.models.find(model)?.contextWindow ?? maxContextTokens;
      this.budgetCache = computeBudget({ contextWindow, maxContextTokens, reserveOutputTokens, safetyMarginRatio });
    }
    return this.budgetCache;
  }

  async composePayload(systemPrompt: string, history: ChatMessage[], tools: ToolDefinition[], ragContext?: string): Promise<LLMPayload> {
    return this.compose(systemPrompt, history, tools, ragContext);
  }

  /** Synchronous core of {@link composePayload}. */
  compose(systemPrompt: string, history: ReadonlyArray<ChatMessage>, tools: ReadonlyArray<ToolDefinition>, ragContext?: string): LLMPayload {
    if (this.disposed) throw new DisposedError(`${SLIDING_WINDOW_STRATEGY_ID} (agent ${this.context.agentId}, session ${this.context.sessionId})`);
    const turn = this.turnOf(history);
    const last = this.lastCall;
    if (
      last &&
      last.history === history &&
      last.length === history.length &&
      last.last === history[history.length - 1] &&
      last.systemPrompt === systemPrompt &&
      last.tools === tools &&
      last.ragContext === ragContext
    ) {
      const payload: LLMPayload = { messages: last.payload.messages.slice(), tools: last.payload.tools.slice(), stats: last.payload.stats };
      safeEmit(this.context.events, 'payload-composed', { ...this.base(turn), stats: payload.stats });
      return payload;
    }

    const budget = this.budget();
    const counter = this.counter;
    const system = [this.systemMessage(systemPrompt)];
    const systemTokens = counter.countMessages(system);
    const toolTokens = counter.countTools(tools);
    if (systemTokens + toolTokens > budget.available) {
      throw new BudgetExceededError(this.strategyId, {
        available: budget.available,
        required: systemTokens + toolTokens,
        sections: { system: systemTokens, tools: toolTokens },
      });
    }

    // Dynamic context (RAG) comes before history, but leaves room for the newest user message.
    const reductions: ReductionRecord[] = [];
    const dynamic: ChatMessage[] = [];
    let ragInputTokens = 0;
    let room = budget.available - systemTokens - toolTokens;
    if (ragContext !== undefined && ragContext.length > 0) {
      const ragMessage = this.systemMessage(ragContext);
      const newestUserTokens = this.newestUserTokens(history, room);
      const ragLimit = room - Math.min(newestUserTokens, Math.floor(room / 2));
      const ragTokens = counter.countUpTo(ragContext, ragLimit) + 4;
      if (ragTokens <= ragLimit) {
        dynamic.push(ragMessage);
        ragInputTokens = counter.countMessage(ragMessage);
      } else if (ragLimit > 16) {
        const cut = truncateToFit(ragContext, { kind: 'head', maxTokens: ragLimit - 4, counter });
        dynamic.push({ role: 'system', content: cut.text });
        ragInputTokens = counter.countMessage(ragMessage);
        reductions.push({ action: 'truncated', from: history.length, to: history.length, messages: 0, tokensBefore: ragInputTokens, tokensAfter: counter.countMessages(dynamic), reason: 'RAG context (dynamic block) truncated to leave room for the current turn', recoverableFrom: 'history' });
      } else {
        ragInputTokens = counter.countMessage(ragMessage);
        reductions.push({ action: 'dropped', from: history.length, to: history.length, messages: 0, tokensBefore: ragInputTokens, tokensAfter: 0, reason: 'RAG context (dynamic block) left out: no room beside the current turn', recoverableFrom: 'history' });
      }
      room -= counter.countMessages(dynamic);
    }

    const window = selectHistoryWindow({ history, budgetTokens: room, counter, ledger: this.ledger, strategyId: this.strategyId });
    const ledger = this.ledger;
    const payload = buildPayload({
      strategyId: this.strategyId,
      model: this.config.model,
      counter,
      budget,
      sections: { system, tools: tools as ToolDefinition[], dynamic, history: window },
      historyLength: history.length,
      historyInputTokens: () => ledger.totalTokens(history),
      otherInputTokens: systemTokens + toolTokens + ragInputTokens,
      reductions,
    });

    const base = this.base(turn);
    const dropped = payload.stats.reductions.filter((record) => record.action === 'dropped' && record.messages > 0);
    if (dropped.length > 0) safeEmit(this.context.events, 'history-trim', { ...base, reductions: dropped, droppedMessages: window.droppedMessages });
    const truncated = payload.stats.reductions.filter((record) => record.action === 'truncated');
    if (truncated.length > 0) safeEmit(this.context.events, 'tool-output-trim', { ...base, reductions: truncated });
    if (payload.stats.usageLevel !== this.level) {
      safeEmit(this.context.events, 'usage-level-change', { ...base, from: this.level, to: payload.stats.usageLevel, used: payload.stats.output_tokens, contextWindow: budget.maxContextTokens });
      this.level = payload.stats.usageLevel;
    }
    safeEmit(this.context.events, 'payload-composed', { ...base, stats: payload.stats });
    this.lastCall = { history, length: history.length, last: history[history.length - 1], systemPrompt, tools, ragContext, payload: { messages: payload.messages.slice(), tools: payload.tools.slice(), stats: payload.stats } };
    return payload;
  }

  async onTurnComplete(_newHistory: ChatMessage[]): Promise<void> {
    if (this.disposed) throw new DisposedError(`${SLIDING_WINDOW_STRATEGY_ID} (agent ${this.context.agentId}, session ${this.context.sessionId})`);
    // Nothing to do in the background: the window is computed on demand from the caller's history.
  }

  /** Releases the cached state. Safe to call more than once. */
  dispose(): void {
    this.disposed = true;
    this.lastCall = undefined;
    this.systemMessages.clear();
  }

  private base(turn: number) {
    return { agentId: this.context.agentId, sessionId: this.context.sessionId, strategyId: this.strategyId, turn };
  }

  /** One message object per distinct text, so counts are cached by identity across turns. */
  private systemMessage(content: string): ChatMessage {
    let message = this.systemMessages.get(content);
    if (message === undefined) {
      if (this.systemMessages.size > 16) this.systemMessages.clear();
      message = { role: 'system', content };
      this.systemMessages.set(content, message);
    }
    return message;
  }

  private newestUserTokens(history: ReadonlyArray<ChatMessage>, limit: number): number {
    for (let index = history.length - 1; index >= 0; index--) {
      if (history[index]!.role === 'user') {
        this.ledger.sync(history);
        return this.ledger.tokensWithin(history, index, limit);
      }
    }
    return 0;
  }

  /**
   * Turn number (user messages seen), counted incrementally while the history only grows; new
   * messages are checked for a known role on the way.
   * @throws HistoryValidationError (`CTXKIT_HISTORY_INVALID`) for a message that is not an object with a known role
   */
  private turnOf(history: ReadonlyArray<ChatMessage>): number {
    let from = 0;
    let count = this.turnCount;
    if (this.turnLength > 0 && history.length >= this.turnLength && history[this.turnLength - 1] === this.turnLast) from = this.turnLength;
    else count = 0;
    for (let index = from; index < history.length; index++) {
      const message = history[index] as { role?: unknown } | null | undefined;
      const role = typeof message === 'object' && message !== null ? message.role : undefined;
      if (role === 'user') count++;
      else if (role !== 'assistant' && role !== 'tool' && role !== 'system') {
        throw new HistoryValidationError(index, `unknown role ${JSON.stringify(role)}`);
      }
    }
    this.turnCount = count;
    this.turnLength = history.length;
    this.turnLast = history[history.length - 1];
    return this.turnCount;
  }
}
