import { UnknownModelError } from '../errors/unknown-model-error';
import { BUILTIN_MODELS } from './builtin-models';
import type { ModelInfo } from './model-info';
import type { IModelRegistry } from './model-registry';

/**
 * The registry: exact ids and aliases first, then the longest matching prefix (dated variants such
 * as `gpt-4o-2024-08-06`). Strict: `get` throws {@link UnknownModelError} for anything else.
 */
export class ModelRegistry implements IModelRegistry {
  private readonly byName = new Map<string, ModelInfo>();
  private readonly models = new Map<string, ModelInfo>();

  constructor(models: readonly ModelInfo[] = BUILTIN_MODELS) {
    for (const model of models) this.register(model);
  }

  register(info: ModelInfo): void {
    if (!info.id || !(info.contextWindow > 0) || !(info.maxOutputTokens > 0)) {
      throw new RangeError(
        `ModelRegistry.register: ${JSON.stringify(info.id)} needs an id and positive contextWindow and maxOutputTokens`,
      );
    }
    const copy: ModelInfo = {
      ...info,
      aliases: info.aliases ? [...info.aliases] : undefined,
      prefixes: info.prefixes ? [...info.prefixes] : undefined,
    };
    this.models.set(copy.id, copy);
    this.byName.set(copy.id.toLowerCase(), copy);
    for (const alias of copy.aliases ?? []) this.byName.set(alias.toLowerCase(), copy);
  }

  find(model: string): ModelInfo | undefined {
    const name = model.trim().toLowerCase();
    const exact = this.byName.get(name) ?? this.byName.get(name.replace(/^[a-z0-9-]+\//, ''));
    if (exact) return exact;
    let best: ModelInfo | undefined;
    let bestLength = 0;
    for (const info of this.models.values()) {
      for (const prefix of [info.id + '-', ...(info.prefixes ?? [])]) {
        const lower = prefix.toLowerCase();
        if (name.startsWith(lower) && lower.length > bestLength) {
          best = info;
          bestLength = lower.length;
        }
      }
    }
    return best;
  }

  get(model: string): ModelInfo {
    const info = this.find(model);
    if (!info) throw new UnknownModelError(model, [...this.models.keys()]);
    return info;
  }

  has(model: string): boolean {
    return this.find(model) !== undefined;
  }

  list(): ModelInfo[] {
    return [...this.models.values()].map((info) => ({ ...info }));
  }
}
