import type { TokenUsage } from '@ctxkit/core';

import type { CompactionConfig } from './compaction-config';

/** The token count at which automatic compaction starts: `contextLimit × thresholdRatio`. */
export function compactionThreshold(contextLimit: number, config: Pick<CompactionConfig, 'thresholdRatio'>): number {
  return Math.floor(contextLimit * config.thresholdRatio);
}

/**
 * The decision: `enabled=false` → false; `auto=false` → false (automatic decisions are
 * off); otherwise `usage.total_tokens >= contextLimit × thresholdRatio`.
 */
export function shouldCompact(
  usage: Readonly<TokenUsage>,
  contextLimit: number,
  config: Pick<CompactionConfig, 'enabled' | 'auto' | 'thresholdRatio'>,
): boolean {
  if (!config.enabled) return false;
  if (!config.auto) return false;
  return usage.total_tokens >= compactionThreshold(contextLimit, config);
}
