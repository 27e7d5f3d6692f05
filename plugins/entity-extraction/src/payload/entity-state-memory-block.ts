import type { MemoryBlock } from '@ctxkit/core/strategy-kit';
import type { PersistedEntityState } from '../state/entity-state';
import type { StateBlockCache } from './state-block-cache';

/**
 * The memory block of the entity state for the composer: the rendered block, shortened on demand to
 * the room a composition leaves it, and standing for the history read so far (older messages the
 * window leaves out are reported as kept in the entity state).
 * @param content the block rendered at `stateMaxTokens` (empty when there is no state to show)
 * @param shortened renders the shorter forms (most turns leave the same room)
 */
export function entityStateMemoryBlock(persisted: PersistedEntityState, content: string, shortened: StateBlockCache, stateMaxTokens: number): MemoryBlock {
  const version = persisted.versions.length;
  return {
    name: 'entity state',
    content,
    shrink: (maxTokens) => {
      const smaller = shortened.render(persisted.state, version, Math.min(maxTokens, stateMaxTokens));
      return smaller.message ? String(smaller.message.content) : undefined;
    },
    covers: { until: persisted.processedThrough + 1, action: 'dropped', recoverableFrom: 'entity-state', reason: 'older than the window: its values are in the entity state' },
  };
}
