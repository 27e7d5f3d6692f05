import type { SystemMessage, UserMessage } from '../contracts/chat-message';
import type { PayloadBudget } from '../contracts/llm-payload';
import type { CtxkitEventBase } from '../events/ctxkit-events';
import { type CtxkitEventBus, safeEmit } from '../events/event-bus';
import { emitReductions } from '../events/reduction-events';
import { HistoryLedger } from '../ledger/history-ledger';
import type { ITokenCounter } from '../token-counting/token-counter';
import { EMPTY_HOLD, type LayoutHold } from './layout-hold';
import { type ComposedPayload, type ComposeRequest, type LayoutEnvironment, layoutPayload } from './layout-payload';
import { ToolResultCollapser } from './tool-result-collapser';

export type { ComposedPayload, ComposeRequest, PreviousPayload } from './layout-payload';

/** Who composes: names events and errors. */
export interface PayloadComposerOwner {
  agentId: string;
  sessionId: string;
  strategyId: string;
  events: CtxkitEventBus;
}

/** Options of {@link PayloadComposer}. */
export interface PayloadComposerOptions {
  owner: PayloadComposerOwner;
  /** Model named in stats. */
  model: string;
  counter: ITokenCounter;
  /** The budget of every payload (called once per layout; cache it when it is costly). */
  budget: () => PayloadBudget;
}

/**
 * The composer every standard strategy builds its payload with: the owner of one conversation's
 * {@link LayoutHold}. `layout(request)` is {@link layoutPayload} on the committed hold (nothing is
 * remembered: a preview, or one of several candidate layouts); `commit(layout, turn)` makes a layout
 * the payload sent: its hold becomes the conversation's, and its events are emitted from its payload;
 * `compose(request)` does both. Its caches (the ledger of per-message token counts and shape checks,
 * one message object per system and memory text) change no output; besides them it keeps only the hold.
 */
export class PayloadComposer {
  readonly ledger: HistoryLedger;
  /** The hold of the payload committed last. */
  private hold: LayoutHold = EMPTY_HOLD;
  private readonly env: Omit<LayoutEnvironment, 'budget'>;

  constructor(private readonly options: PayloadComposerOptions) {
    this.ledger = new HistoryLedger(options.counter);
    const systemMessages = new Map<string, SystemMessage>();
    this.env = {
      strategyId: options.owner.strategyId,
      model: options.model,
      counter: options.counter,
      ledger: this.ledger,
      systemMessage: (content) => {
        let message = systemMessages.get(content);
        if (message === undefined) {
          if (systemMessages.size > 16) systemMessages.clear();
          message = { role: 'system', content };
          systemMessages.set(content, message);
        }
        return message;
      },
      memoryMessages: new Map<string, SystemMessage | UserMessage>(),
      collapser: new ToolResultCollapser(),
    };
  }

  /**
   * Lays out one payload on the committed hold, without committing it.
   * @throws BudgetExceededError (`CTXKIT_BUDGET_EXCEEDED`) when system prompt + tools exceed the budget, or not even
   *   the truncated newest user message fits
   * @throws HistoryValidationError (`CTXKIT_HISTORY_INVALID`) for a malformed history
   */
  layout(request: ComposeRequest): ComposedPayload {
    this.checkHistoryShape(request.history);
    return layoutPayload(request, this.hold, { ...this.env, budget: this.options.budget() });
  }

  /**
   * Makes `composed` the payload this conversation sent: the next layout builds on its hold (the held
   * window start, output cuts and memory blocks; `repeatedPrefixTokens`), and its events are emitted:
   * each of its dropped and cut records in one `history-trim` or `tool-output-trim` (memory blocks
   * and the RAG context included), `usage-level-change` when the level changed (unless the session's
   * host emits it: `CtxkitEventBus.hostedUsageLevels`), and `payload-composed`.
   */
  commit(composed: ComposedPayload, turn: number): void {
    const next = composed.nextHold;
    const level = this.hold.sent?.level ?? 'ok';
    this.hold = next;
    const { payload } = composed;
    const { events, sessionId } = this.options.owner;
    const base = this.eventBase(turn);
    emitReductions(events, base, payload.stats.reductions);
    if (payload.stats.usageLevel !== level && !events.hostedUsageLevels?.has(sessionId)) {
      safeEmit(events, 'usage-level-change', {
        ...base,
        from: level,
        to: payload.stats.usageLevel,
        used: payload.stats.output_tokens,
        contextWindow: payload.stats.budget.maxContextTokens,
      });
    }
    safeEmit(events, 'payload-composed', { ...base, stats: payload.stats });
  }

  /** Lays out one payload and commits it (see {@link layout} and {@link commit}). */
  compose(request: ComposeRequest): ComposedPayload {
    const composed = this.layout(request);
    this.commit(composed, request.turn);
    return composed;
  }

  /** The event fields of this composer's owner at `turn`. */
  eventBase(turn: number): CtxkitEventBase {
    const { agentId, sessionId, strategyId } = this.options.owner;
    return { agentId, sessionId, strategyId, turn };
  }

  /**
   * The history check `layout` makes, so that every strategy refuses the same malformed histories:
   * the messages new since the previous check (all of them when the history is not the previously
   * checked one grown) are checked. A strategy that must check before composing (it extracts or
   * folds first) calls this instead of a full check, and `layout` then has nothing left to check.
   * @throws HistoryValidationError (`CTXKIT_HISTORY_INVALID`)
   */
  checkHistoryShape(history: ReadonlyArray<unknown>): void {
    this.ledger.checkShape(history);
  }
}
