import type { ComposedPayload } from '@ctxkit/core/strategy-kit';

/**
 * True when a composed payload could not hold the whole working view: the window left out older
 * history or cut the current turn, or the memory block was shortened or left out to make room.
 */
export function underPressure(composed: Pick<ComposedPayload, 'window' | 'memory'>): boolean {
  const cut = composed.window.reductions.some(
    (record) => record.action === 'truncated' || record.cause === 'older-than-window',
  );
  return cut || composed.memory.some((outcome) => outcome === 'shortened' || outcome === 'left-out');
}
