import type { StrategySummary } from '../lab/strategy-summary';

/** One point of a transcript's facts-against-cost chart: one strategy (or one configuration of it). */
export interface FactsCostPoint {
  /** The row's label: the plugin id, or the agent or configuration it names. */
  label: string;
  /** The strategy the row ran (configurations of one strategy share it). */
  strategyId: string;
  /** Input cost of one conversation in USD, with cache hits (the table's first cost). */
  cost: number;
  /** Facts kept, in percent (the table's fact retention). */
  factsKept: number;
  /**
   * On its strategy's frontier: no other row of the same strategy keeps as many facts or more for
   * as little or less, and one of the two strictly.
   */
  frontier: boolean;
}

/**
 * The facts-against-cost chart of one transcript's rows: one point per row that has both checkable
 * facts and a cost, in the rows' order. Rows are per strategy, so each strategy (or configuration,
 * when the same strategy is compared under several labels, as `--sweep` does) is one point; each
 * point says whether it is on its strategy's frontier. Empty when the transcript has no checkable facts.
 */
export function factsCostPoints(rows: readonly StrategySummary[]): FactsCostPoint[] {
  const points = rows.flatMap((row) =>
    row.factRetention === null || row.inputCostPerConversation === undefined
      ? []
      : [
          {
            label: row.label,
            strategyId: row.strategyId,
            cost: row.inputCostPerConversation.withCache,
            factsKept: row.factRetention * 100,
          },
        ],
  );
  return points.map((point) => ({
    ...point,
    frontier: !points.some(
      (other) => other !== point && other.strategyId === point.strategyId && dominates(other, point),
    ),
  }));
}

/** `a` keeps at least the facts of `b` for at most its cost, and is better on one of the two. */
function dominates(
  a: Pick<FactsCostPoint, 'cost' | 'factsKept'>,
  b: Pick<FactsCostPoint, 'cost' | 'factsKept'>,
): boolean {
  return a.cost <= b.cost && a.factsKept >= b.factsKept && (a.cost < b.cost || a.factsKept > b.factsKept);
}

/** The frontier points of one strategy, cheapest first (the line the chart draws through them). */
export function frontierOf(points: readonly FactsCostPoint[], strategyId: string): FactsCostPoint[] {
  return points
    .filter((point) => point.frontier && point.strategyId === strategyId)
    .sort((a, b) => a.cost - b.cost || a.factsKept - b.factsKept);
}
