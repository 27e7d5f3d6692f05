import { DisposedError } from '../errors/disposed-error';

/** Who a strategy instance serves, as its disposed error names it. */
export interface StrategyOwnerNames {
  strategyId: string;
  agentId: string;
  sessionId: string;
}

/**
 * Whether a strategy instance was disposed: every method of a disposed instance throws the same
 * `DisposedError`, naming the strategy, the method, the agent and the session.
 */
export class StrategyLifetime {
  private ended = false;

  constructor(private readonly owner: StrategyOwnerNames) {}

  /** True once {@link end} was called. */
  get disposed(): boolean {
    return this.ended;
  }

  /** Marks the instance disposed; returns false when it already was (so that dispose can run once). */
  end(): boolean {
    const live = !this.ended;
    this.ended = true;
    return live;
  }

  /**
   * @param method the method called (named in the error)
   * @throws DisposedError (`CTXKIT_DISPOSED`) after {@link end}
   */
  assertLive(method: string): void {
    if (!this.ended) return;
    const { strategyId, agentId, sessionId } = this.owner;
    throw new DisposedError(`${strategyId} (${method}) for agent "${agentId}", session "${sessionId}"`);
  }
}
