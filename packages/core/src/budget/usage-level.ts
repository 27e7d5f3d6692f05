import type { UsageLevel } from '../contracts/llm-payload';

/** Usage level boundaries: 0-60% ok, 60-80% warn, 80-90% compact, 90%+ critical. */
export const USAGE_LEVEL_THRESHOLDS = { warn: 0.6, compact: 0.8, critical: 0.9 } as const;

/** The usage level of `used` tokens in a window of `contextWindow` tokens. */
export function usageLevel(used: number, contextWindow: number): UsageLevel {
  const ratio = contextWindow > 0 ? used / contextWindow : 1;
  if (ratio >= USAGE_LEVEL_THRESHOLDS.critical) return 'critical';
  if (ratio >= USAGE_LEVEL_THRESHOLDS.compact) return 'compact';
  if (ratio >= USAGE_LEVEL_THRESHOLDS.warn) return 'warn';
  return 'ok';
}
