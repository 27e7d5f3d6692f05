/** One strategy configuration the harness measures: a plugin and the config it gets at a ceiling. */
export interface StrategyVariant {
  /** Row label, e.g. `summarization (threshold 4, batch 2)`. */
  label: string;
  pluginId: string;
  /** The strategy config at a ceiling: `{ maxContextTokens, reserveOutputTokens: 0 }` plus the variant's own keys. */
  config(ceiling: number): Record<string, unknown>;
}

/** A variant whose config is the ceiling plus fixed keys. */
export function variant(
  label: string,
  pluginId: string,
  extra: Readonly<Record<string, unknown>> = {},
): StrategyVariant {
  return { label, pluginId, config: (ceiling) => ({ maxContextTokens: ceiling, reserveOutputTokens: 0, ...extra }) };
}
