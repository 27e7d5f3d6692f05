/**
 * Default share of the room (the budget left after the system prompt, tools and dynamic context)
 * that memory blocks may take together; the newest history that fits gets the rest. Measured on the
 * bundled and long-conversation replays: half keeps the most facts per token for a summary, and an
 * entity state is usually far smaller than its share. @default 0.5
 */
export const DEFAULT_MEMORY_SHARE = 0.5;

/** Tokens memory blocks may take together in a room of `roomTokens`. */
export function memoryAllowance(roomTokens: number, share: number = DEFAULT_MEMORY_SHARE): number {
  if (!(share >= 0 && share <= 1)) throw new RangeError(`memoryShare must be in [0, 1] (got ${share})`);
  return Math.max(0, Math.floor(roomTokens * share));
}
