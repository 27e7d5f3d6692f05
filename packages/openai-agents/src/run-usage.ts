import { type TokenUsage, toTokenUsage } from '@ctxkit/core';
import type { Usage } from '@openai/agents';

/** The counts of an Agents SDK usage entry's `inputTokensDetails` that ctxkit reads. */
function details(records: ReadonlyArray<Record<string, number>>): {
  cached_tokens: number;
  cache_write_tokens: number;
} {
  const total = (key: string) =>
    records.reduce((sum, record) => sum + (typeof record[key] === 'number' ? record[key]! : 0), 0);
  return { cached_tokens: total('cached_tokens'), cache_write_tokens: total('cache_write_tokens') };
}

/**
 * The usage of each model call of an Agents SDK run (`result.runContext.usage`), as ctxkit's
 * `TokenUsage`: its `requestUsageEntries`, one per call, else the run's total as one. The input
 * counts include the cached and cache-written tokens (`inputTokensDetails.cached_tokens`,
 * `cache_write_tokens`, the Responses API's `input_tokens_details`), which go apart.
 */
export function tokenUsagesOfRun(usage: Usage): TokenUsage[] {
  const entries = usage.requestUsageEntries;
  if (entries !== undefined && entries.length > 0) {
    return entries.map((entry) =>
      toTokenUsage({
        input_tokens: entry.inputTokens,
        output_tokens: entry.outputTokens,
        input_tokens_details: details([entry.inputTokensDetails ?? {}]),
      }),
    );
  }
  if (usage.requests === 0 && usage.inputTokens === 0 && usage.outputTokens === 0) return [];
  return [
    toTokenUsage({
      input_tokens: usage.inputTokens,
      output_tokens: usage.outputTokens,
      input_tokens_details: details(usage.inputTokensDetails ?? []),
    }),
  ];
}
