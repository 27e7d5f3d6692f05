import { type IContextStore, MemoryContextStore, type ToolOutputRef } from '@ctxkit/core';

import { resolveToolOutputCacheStrategyConfig } from '../tool-output-cache-strategy-config';
import type { InContextView } from './in-context-view';
import { ToolOutputCache } from './tool-output-cache';
import type { ToolOutputCacheConfig } from './tool-output-cache-config';

/**
 * Caches one tool output and returns its ref and in-context view: what the strategy does for each
 * new tool message, as one call for benchmarks (5 MB / 100 MB outputs). Uses a fresh in-memory store
 * unless one is given; the view's limits are validated and defaulted by `plugin.json`'s `configSchema`.
 * @throws ConfigValidationError (`CTXKIT_CONFIG_INVALID`) for limits the schema rejects
 */
export async function cacheToolOutputView(
  output: string,
  options: { store?: IContextStore; agentId?: string; sessionId?: string } & Partial<
    Pick<ToolOutputCacheConfig, 'maxMessageBytes' | 'maxLineLength'>
  > = {},
): Promise<{ ref: ToolOutputRef; view: InContextView; cache: ToolOutputCache }> {
  const limits: Partial<ToolOutputCacheConfig> = {};
  if (options.maxMessageBytes !== undefined) limits.maxMessageBytes = options.maxMessageBytes;
  if (options.maxLineLength !== undefined) limits.maxLineLength = options.maxLineLength;
  const { maxMessageBytes, maxLineLength } = resolveToolOutputCacheStrategyConfig({
    toolOutputCache: limits,
  }).toolOutputCache;
  const cache = new ToolOutputCache({
    store: options.store ?? new MemoryContextStore(),
    agentId: options.agentId ?? 'bench',
    sessionId: options.sessionId ?? 'default',
    maxMessageBytes,
    maxLineLength,
  });
  const { ref, view } = await cache.cache(output);
  return { ref, view, cache };
}
