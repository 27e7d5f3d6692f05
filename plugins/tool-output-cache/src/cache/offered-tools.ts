import type { ToolDefinition } from '@ctxkit/core';

export interface OfferedToolsInput {
  /** The caller's tools; the host may already list the strategy's own definitions among them. */
  callerTools: ReadonlyArray<ToolDefinition>;
  /** Every definition the strategy contributes (the host registers their executors once). */
  own: ReadonlyArray<ToolDefinition>;
  /** The definitions to offer in this payload (a subset of `own`). */
  offer: ReadonlyArray<ToolDefinition>;
}

/**
 * The caller's tools, then the strategy's definitions offered now. A strategy definition the host passed in is left
 * out until it is offered; a caller tool that only shares a name with one is kept.
 */
export function offeredTools({ callerTools, own, offer }: OfferedToolsInput): ToolDefinition[] {
  const ownByName = new Map(own.map((definition) => [definition.function.name, JSON.stringify(definition)]));
  const offered = new Set(offer.map((definition) => definition.function.name));
  const kept = callerTools.filter((tool) => {
    const mine = ownByName.get(tool.function.name);
    return mine === undefined || offered.has(tool.function.name) || mine !== JSON.stringify(tool);
  });
  const present = new Set(kept.map((tool) => tool.function.name));
  return [...kept, ...offer.filter((definition) => !present.has(definition.function.name))];
}

/**
 * The tool lists of a session's payloads, one per choice of what is offered: the same array while the caller passes
 * the same tool objects (in a new array or not), so that it is counted once, not at every turn.
 */
export class OfferedToolLists {
  private readonly lists = new Map<boolean, { input: ReadonlyArray<ToolDefinition | null>; list: ToolDefinition[] }>();

  /** {@link offeredTools} of `input`, or the list made last time for `offerOwn` when its input was the same. */
  list(input: OfferedToolsInput, offerOwn: boolean): ToolDefinition[] {
    const known = this.lists.get(offerOwn);
    // The three lists in one, apart by `null` (never a tool).
    const items = [...input.callerTools, null, ...input.own, null, ...input.offer];
    if (known && known.input.length === items.length && known.input.every((item, index) => item === items[index]))
      return known.list;
    const list = offeredTools(input);
    this.lists.set(offerOwn, { input: items, list });
    return list;
  }
}

/**
 * Largest share of the room (the budget after system prompt, caller's tools and dynamic context) the expand and grep
 * definitions may take: in a smaller room they would crowd out more history than they bring back.
 */
export const EXPAND_TOOLS_MAX_ROOM_SHARE = 0.25;
