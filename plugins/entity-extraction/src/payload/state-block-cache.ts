import type { ITokenCounter } from '@ctxkit/core';
import type { MemoryRole } from '@ctxkit/core/strategy-kit';

import type { CompiledStateSchema } from '../schema/state-schema';
import type { EntityState } from '../state/entity-state';
import { type RenderedStateBlock, renderStateBlock } from './render-state-block';

/**
 * The state block of the last composition, kept for the next one: most turns leave the state as it
 * was, and rendering it again (one JSON line and one count a field, shortening to the cap) would be
 * paid on every call. A block is reused for the same state object, or for a state read afresh whose
 * version and JSON text are the same, at the same cap; anything else renders again.
 */
export class StateBlockCache {
  private last:
    | {
        state: Readonly<EntityState>;
        json: string | undefined;
        version: number;
        maxTokens: number;
        block: RenderedStateBlock;
      }
    | undefined;

  constructor(
    private readonly schema: CompiledStateSchema,
    private readonly counter: ITokenCounter,
    private readonly role: MemoryRole = 'user',
  ) {}

  /** The block of `state` at `version`, within `maxTokens` (see {@link renderStateBlock}). */
  render(state: Readonly<EntityState>, version: number, maxTokens: number): RenderedStateBlock {
    const last = this.last;
    if (last && last.version === version && last.maxTokens === maxTokens) {
      if (last.state === state) return last.block;
      last.json ??= JSON.stringify(last.state);
      if (last.json === JSON.stringify(state)) {
        last.state = state;
        return last.block;
      }
    }
    const block = renderStateBlock(state, version, this.schema, this.counter, maxTokens, this.role);
    this.last = { state, json: undefined, version, maxTokens, block };
    return block;
  }
}
