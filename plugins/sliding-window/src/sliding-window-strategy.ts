import {
  DisposedError,
  HistoryValidationError,
  safeEmit,
  type ChatMessage,
  type ComposeOptions,
  type ContextManagerCapabilities,
  type IContextManager,
  type LLMPayload,
  type PayloadBudget,
  type ReductionEpoch,
  type ReductionPreview,
  type StrategyContext,
  type ITokenCounter,
  type ToolDefinition,
} from '@ctxkit/core';
import { computeBudget, PayloadComposer, payloadPreview } from '@ctxkit/core/strategy-kit';
import { SLIDING_WINDOW_STRATEGY_ID, type SlidingWindowConfig } from './sliding-window-config';

interface LastCall {
  history: ReadonlyArray<ChatMessage>;
  length: number;
  last: ChatMessage | undefined;
  systemPrompt: string;
  tools: ReadonlyArray<ToolDefinition>;
  ragContext: string | undefined;
  collapse: boolean;
  payload: LLMPayload;
}

/**
 * The sliding window (the default): system prompt + tool definitions + dynamic
 * context (RAG) are counted first; the rest of the budget goes to the newest history, by whole
 * tool-call groups, through core's `selectHistoryWindow`. Older history is dropped and reported; the
 * current turn is truncated (tool outputs head + tail, then the newest user message) rather than
 * dropped; orphan tool results and dangling calls are never sent and are reported.
 *
 * One instance serves one conversation (agent + session). Per turn it counts only new messages (a
 * ledger over the history), and a repeat call with nothing new returns the previous payload.
 */
export class SlidingWindowStrategy implements IContextManager, ContextManagerCapabilities {
  private readonly config: SlidingWindowConfig;
  private readonly counter: ITokenCounter;
  private readonly composer: PayloadComposer;
  private budgetCache: PayloadBudget | undefined;
  private lastCall: LastCall | undefined;
  private turnCount = 0;
  private turnLength = 0;
  private turnLast: ChatMessage | undefined;
  private disposed = false;
  /** The id this instance runs under (the plugin id, or the id a host registered it with). */
  private readonly strategyId: string;

  /** @param config validated, with the schema's defaults applied (see `resolveSlidingWindowConfig`) */
  constructor(config: SlidingWindowConfig, private readonly context: StrategyContext) {
    this.config = config;
    this.strategyId = context.strategyId || SLIDING_WINDOW_STRATEGY_ID;
    this.counter = this.config.model === context.model ? context.counter : context.counterFor(this.config.model);
    this.composer = new PayloadComposer({
      owner: { agentId: context.agentId, sessionId: context.sessionId, strategyId: this.strategyId, events: context.events },
      model: this.config.model,
      counter: this.counter,
      budget: () => this.budget(),
    });
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

  async composePayload(systemPrompt: string, history: ChatMessage[], tools: ToolDefinition[], ragContext?: string, options?: ComposeOptions): Promise<LLMPayload> {
    return this.compose(systemPrompt, history, tools, ragContext, options);
  }

  /** Synchronous core of {@link composePayload}. */
  compose(systemPrompt: string, history: ReadonlyArray<ChatMessage>, tools: ReadonlyArray<ToolDefinition>, ragContext?: string, options: ComposeOptions = {}): LLMPayload {
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
      last.ragContext === ragContext &&
      last.collapse === (options.collapseOlderToolResults ?? false)
    ) {
      const payload: LLMPayload = { messages: last.payload.messages.slice(), tools: last.payload.tools.slice(), stats: last.payload.stats };
      safeEmit(this.context.events, 'payload-composed', { ...this.composer.eventBase(turn), stats: payload.stats });
      return payload;
    }

    const { payload } = this.composer.compose({ systemPrompt, history, tools, turn, ragContext, cutBackRatio: this.config.cutBackRatio, ...options });
    this.lastCall = { history, length: history.length, last: history[history.length - 1], systemPrompt, tools, ragContext, collapse: options.collapseOlderToolResults ?? false, payload: { messages: payload.messages.slice(), tools: payload.tools.slice(), stats: payload.stats } };
    return payload;
  }

  /**
   * What {@link composePayload} with these arguments would leave out and cut, composed without being
   * remembered: no event, and the held window start (`cutBackRatio`) stays as it was.
   */
  async preview(systemPrompt: string, history: ChatMessage[], tools: ToolDefinition[], ragContext?: string, options: ComposeOptions = {}): Promise<ReductionPreview> {
    if (this.disposed) throw new DisposedError(`${SLIDING_WINDOW_STRATEGY_ID} (agent ${this.context.agentId}, session ${this.context.sessionId})`);
    const { payload } = this.composer.compose({ systemPrompt, history, tools, turn: this.turnOf(history), ragContext, cutBackRatio: this.config.cutBackRatio, ...options, preview: true });
    return payloadPreview(payload, history, this.counter);
  }

  /** None: the window keeps no state of its own, so there is nothing to undo (and no `undo`). */
  async epochs(): Promise<ReductionEpoch[]> {
    return [];
  }

  async onTurnComplete(_newHistory: ChatMessage[]): Promise<void> {
    if (this.disposed) throw new DisposedError(`${SLIDING_WINDOW_STRATEGY_ID} (agent ${this.context.agentId}, session ${this.context.sessionId})`);
    // Nothing to do in the background: the window is computed on demand from the caller's history.
  }

  /** Releases the cached state. Safe to call more than once. */
  dispose(): void {
    this.disposed = true;
    this.lastCall = undefined;
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
