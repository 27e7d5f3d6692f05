import type { StrategyVariant } from './strategy-variant';

/** A data set the harness replays, with its ceilings and the strategy variants it measures. */
export interface QualityDataset {
  /** Short name used by `--dataset` and in the table: `tau-bench`, `locomo`, `openhands`. */
  name: string;
  /** The JSONL file, or undefined when it is not available here (then `skipped` says why). */
  file: string | undefined;
  skipped?: string;
  ceilings: number[];
  variants: StrategyVariant[];
  /** Compose once more after the whole conversation (facts asked after it). */
  finalCompose: boolean;
  /** Strategies left out on this data set, and why (printed with the table). */
  notes: string[];
}
