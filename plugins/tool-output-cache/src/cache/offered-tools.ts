import type { ToolDefinition } from '@ctxkit/core';

/** What the payload's tool list is made of. */
export interface OfferedToolsInput {
  /** The caller's tools; the host may already list the strategy's own definitions among them. */
  callerTools: ReadonlyArray<ToolDefinition>;
  /** Every definition the strategy contributes (the host registers their executors once). */
  own: ReadonlyArray<ToolDefinition>;
  /** The definitions to offer in this payload (a subset of `own`). */
  offer: ReadonlyArray<ToolDefinition>;
}

/**
 * The tools of one payload: the caller's own tools, then the strategy's definitions that are useful
 * now. A strategy definition the host passed in is left out until it is offered; a caller tool that
 * only shares a name with one (a user tool hiding it) is kept as it is.
 */
export function offeredTools({ callerTools, own, offer }: OfferedToolsInput): ToolDefinition[] {
  const ownByName = new Map(own.map((definition) => [definition.function.name, JSON.stringify(definition)]));
  const offered = new Set(offer.map((definition) => definition.function.name));
  const result: ToolDefinition[] = [];
  const present = new Set<string>();
  for (const tool of callerTools) {
    const name = tool.function.name;
    const mine = ownByName.get(name);
    if (mine !== undefined && !offered.has(name) && mine === JSON.stringify(tool)) continue;
    result.push(tool);
    present.add(name);
  }
  for (const definition of offer) if (!present.has(definition.function.name)) result.push(definition);
  return result;
}

/**
 * Largest share of the room (the budget left after the system prompt, the caller's tools and the
 * dynamic context) the expand and grep definitions may take. In a smaller room they would crowd
 * out more history than they could bring back: older outputs are micro-compacted instead.
 */
export const EXPAND_TOOLS_MAX_ROOM_SHARE = 0.25;

/** True when definitions of `toolTokens` tokens fit their share of a room of `roomTokens`. */
export function affordsExpandTools(toolTokens: number, roomTokens: number): boolean {
  return toolTokens <= roomTokens * EXPAND_TOOLS_MAX_ROOM_SHARE;
}
