import { MemoryContextStore, type IContextStore } from '@ctxkit/core';
import type { InContextView } from './in-context-view';
import { TOOL_OUTPUT_CACHE_DEFAULTS } from './tool-output-cache-config';
import { ToolOutputCache } from './tool-output-cache';
import type { ToolOutputRef } from '@ctxkit/core';

/**
 * Caches one tool output and returns its ref and in-context view: what the strategy does for each
 * new tool message, as one call for benchmarks (5 MB / 100 MB outputs) and hosts that cache outside
 * a strategy. Uses a fresh in-memory store unless one is given.
 */
export async function cacheToolOutputView(
  output: string,
  options: { store?: IContextStore; agentId?: string; sessionId?: string; maxMessageBytes?: number; maxLineLength?: number } = {},
): Promise<{ ref: ToolOutputRef; view: InContextView; cache: ToolOutputCache }> {
  const cache = new ToolOutputCache({
    store: options.store ?? new MemoryContextStore(),
    agentId: options.agentId ?? 'bench',
    sessionId: options.sessionId ?? 'default',
    maxMessageBytes: options.maxMessageBytes ?? TOOL_OUTPUT_CACHE_DEFAULTS.maxMessageBytes,
    maxLineLength: options.maxLineLength ?? TOOL_OUTPUT_CACHE_DEFAULTS.maxLineLength,
  });
  const { ref, view } = await cache.cache(output);
  return { ref, view, cache };
}
