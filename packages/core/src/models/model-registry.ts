import type { ModelInfo } from './model-info';

/**
 * Context window and max output per model. Strict by default: an unknown model is an
 * `UnknownModelError` naming the model and how to register it. Enrichable at
 * runtime (`register`) and from config (`createContextRuntime({ models })`).
 */
export interface IModelRegistry {
  /** Resolves an id, alias or dated variant. @throws UnknownModelError */
  get(model: string): ModelInfo;
  /** Like `get`, but `undefined` instead of throwing. */
  find(model: string): ModelInfo | undefined;
  has(model: string): boolean;
  /** Adds or replaces a model. */
  register(info: ModelInfo): void;
  list(): ModelInfo[];
}
