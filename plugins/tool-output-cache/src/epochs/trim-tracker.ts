import type { ChatMessage, ITokenCounter } from '@ctxkit/core';

import { isTrimmed } from '../cache/trimmed-placeholder';
import { isMicroCompacted } from '../view/micro-compact';

/** A tool output that a payload shows as a placeholder for the first time. */
export interface NewTrim {
  /** Its index in the caller's history. */
  position: number;
  toolCallId: string;
  /** Tokens of its placeholder. */
  tokens: number;
}

/**
 * Which placeholders of a payload are new. An output is recorded once: by the epoch of the first
 * payload that carries it as a placeholder (of the tool output budget, of micro-compact, or to fit);
 * an output the window leaves out with the older history changes nothing the payload depends on and
 * is not looked at. Undoing the epoch forgets its outputs here (the user took them back), so that a
 * later trim of one of them is new again.
 */
export class TrimTracker {
  private readonly recorded = new Set<string>();

  /**
   * The new placeholders among `candidates` (positions of `messages`, the view a payload was composed
   * from) at or after `from` (the first position the payload carries), in position order. They count
   * as recorded from now on.
   */
  take(
    messages: ReadonlyArray<ChatMessage>,
    candidates: Iterable<number>,
    from: number,
    counter: ITokenCounter,
  ): NewTrim[] {
    const found = new Map<number, NewTrim>();
    for (const position of candidates) {
      if (position < from || found.has(position)) continue;
      const message = messages[position];
      if (message?.role !== 'tool' || this.recorded.has(message.tool_call_id)) continue;
      if (!isTrimmed(message) && !isMicroCompacted(message)) continue;
      found.set(position, { position, toolCallId: message.tool_call_id, tokens: counter.countMessage(message) });
    }
    const trims = [...found.values()].sort((a, b) => a.position - b.position);
    for (const trim of trims) this.recorded.add(trim.toolCallId);
    return trims;
  }

  /** Forgets these outputs (their trim was undone). */
  forget(toolCallIds: Iterable<string>): void {
    for (const id of toolCallIds) this.recorded.delete(id);
  }
}
