import type { StrategySummary } from '../lab/strategy-summary';

/** One point of a transcript's facts-against-cost chart: one strategy (or one configuration of it). */
export interface FactsCostPoint {
  /** The row's label: the plugin id, or the agent or configuration it names. */
  label: string;
  /** Input cost of one conversation in USD, with cache hits (the table's first cost). */
  cost: number;
  /** Facts kept, in percent (the table's fact retention). */
  factsKept: number;
}

/**
 * The facts-against-cost chart of one transcript's rows: one point per row that has both checkable
 * facts and a cost, in the rows' order. Rows are per strategy, so each strategy (or configuration,
 * when the same strategy is compared under several labels) is one point. Empty when the transcript
 * has no checkable facts.
 */
export function factsCostPoints(rows: readonly StrategySummary[]): FactsCostPoint[] {
  return rows.flatMap((row) =>
    row.factRetention === null || row.inputCostPerConversation === undefined
      ? []
      : [{ label: row.label, cost: row.inputCostPerConversation.withCache, factsKept: row.factRetention * 100 }],
  );
}
