/**
 * The share of the strategy's available budget a session's pins may take together, unless the agent manifest sets
 * `pinShare`.
 */
export const DEFAULT_PIN_SHARE = 0.25;
