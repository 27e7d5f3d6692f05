import { PayloadComposer } from '../composer/payload-composer';
import type { PayloadBudget } from '../contracts/llm-payload';
import { GrowingHistoryCheck } from '../messages/growing-history-check';
import type { StrategyContext } from '../plugins/strategy-plugin';
import type { ITokenCounter } from '../token-counting/token-counter';
import { type BudgetConfig, budgetFromConfig } from './budget-from-config';
import { StrategyLifetime } from './strategy-lifetime';
import { TurnCounter } from './turn-counter';

/** What {@link StrategyFoundation} is built from besides the strategy's context. */
export interface StrategyFoundationOptions {
  /** The strategy's own id, used when the context names none. */
  strategyId: string;
  /** The model the strategy counts and budgets for; `null` or absent for the agent's model. */
  model?: string | null;
  /** The budget settings of the strategy's config. */
  budget: BudgetConfig;
  /**
   * Turn counting checks the caller's history apart from the composer's check: for a strategy whose
   * composer lays out another array than the caller's history (a working view of it), where one check
   * shared by both would read each whole on every call. @default false
   */
  ownHistoryCheck?: boolean;
}

/**
 * What a standard strategy is built on besides its policy, for one conversation (agent + session):
 * the counter of its model (the agent's own when it is the agent's model), the budget from its config
 * (computed on first use), the payload composer, the turn counter (sharing the composer's history
 * check unless told otherwise), and the disposed check every method makes.
 * @see docs/06-writing-a-strategy.md
 */
export class StrategyFoundation {
  /** The id this instance runs under (the context's, else the strategy's own). */
  readonly strategyId: string;
  readonly model: string;
  readonly counter: ITokenCounter;
  /** Composes every payload; its ledger counts only new messages per turn. */
  readonly composer: PayloadComposer;
  readonly turns: TurnCounter;
  private readonly lifetime: StrategyLifetime;
  private cachedBudget: PayloadBudget | undefined;

  constructor(
    private readonly context: StrategyContext,
    private readonly options: StrategyFoundationOptions,
  ) {
    const { agentId, sessionId, events } = context;
    this.strategyId = context.strategyId || options.strategyId;
    this.model = options.model ?? context.model;
    this.counter = this.model === context.model ? context.counter : context.counterFor(this.model);
    const owner = { agentId, sessionId, strategyId: this.strategyId, events };
    this.composer = new PayloadComposer({
      owner,
      model: this.model,
      counter: this.counter,
      budget: () => this.budget(),
    });
    this.turns = new TurnCounter(options.ownHistoryCheck ? new GrowingHistoryCheck() : this.composer);
    this.lifetime = new StrategyLifetime(owner);
  }

  /**
   * The budget of every payload: from `maxContextTokens`, else the model registry's window.
   * @throws UnknownModelError (`CTXKIT_UNKNOWN_MODEL`) when `maxContextTokens` is null and the model is not registered
   */
  budget(): PayloadBudget {
    this.cachedBudget ??= budgetFromConfig(this.options.budget, this.model, this.context.models);
    return this.cachedBudget;
  }

  /** True once {@link dispose} was called. */
  get disposed(): boolean {
    return this.lifetime.disposed;
  }

  /** Marks the strategy disposed; returns false when it already was. */
  dispose(): boolean {
    return this.lifetime.end();
  }

  /**
   * @param method the method called (named in the error)
   * @throws DisposedError (`CTXKIT_DISPOSED`) after {@link dispose}
   */
  assertLive(method: string): void {
    this.lifetime.assertLive(method);
  }
}
