import type { IModelRegistry } from '@ctxkit/core';

/**
 * The context limit compaction measures against: `maxContextTokens` when set, else the model's context window.
 * @throws UnknownModelError (`CTXKIT_UNKNOWN_MODEL`) naming the model and how to register it
 */
export function resolveContextLimit(models: IModelRegistry, model: string, maxContextTokens?: number | null): number {
  if (typeof maxContextTokens === 'number' && maxContextTokens > 0) return Math.floor(maxContextTokens);
  return models.get(model).contextWindow;
}
