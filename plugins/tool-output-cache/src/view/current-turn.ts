import { compactionTail } from '../compaction/tail-turns';
import type { ViewEntry } from './view-entry';

/**
 * Where the current turn of a view starts: the tool outputs from this index on are never replaced by
 * the `[tool output trimmed; ref=…]` placeholder of the tool output budget, so that an
 * output the model just received (the answer of a `tool_output_cache` expansion above all) reaches it
 * as text and is not turned into another ref to expand. The current turn is everything after the
 * newest user message of the caller; in a long single-turn agent run (one user message, then many
 * model steps, the same rule as the compaction tail of {@link compactionTail}) it is the newest model
 * step: the newest assistant message and its results. Without any user message it is the newest model
 * step as well. Returns `entries.length` when there is nothing to protect.
 */
export function currentTurnStart(entries: ReadonlyArray<ViewEntry>): number {
  const tail = compactionTail(entries, 1);
  if (tail.start < entries.length) return tail.start;
  for (let index = entries.length - 1; index >= 0; index--) {
    const entry = entries[index]!;
    if (entry.source !== null && entry.message.role === 'assistant') return index;
  }
  return entries.length;
}
