import type { ReasoningItem } from '@ctxkit/core';

/** What a compaction reply holds. */
export interface CompactionReply {
  /** The `<retain>` block, `''` when the reply has none. */
  retain: string;
  /** The `<summary>` block; never empty, but for a provider compaction whose item is encrypted (`''`). */
  summary: string;
  /**
   * The provider's compaction item, when the provider compacted (`compaction.engine`): it replaces
   * the summarized turns, sent back unchanged, and `summary` is its readable text.
   */
  item?: ReasoningItem;
}

/**
 * The model's final `<tag>…</tag>` block, or `undefined`. The block ends at the last closing tag;
 * its start is the opening tag that balances it, walking back (so a draft block before the final
 * one is skipped, and a quoted `<summary>…</summary>` pair, such as an HTML element, stays inside).
 * When the closing tags outnumber the opening ones (the model quoted a tool output that contains
 * `</summary>`), the block starts at the last opening tag, so the quoted text stays inside the
 * summary instead of cutting it short, and an earlier draft block is still skipped.
 */
export function extractFinalTagBlock(text: string, tag: string): string | undefined {
  const open = `<${tag}>`;
  const close = `</${tag}>`;
  const end = text.lastIndexOf(close);
  if (end === -1) return undefined;
  const tags: Array<{ at: number; opening: boolean }> = [];
  for (let at = text.indexOf(open); at !== -1 && at < end; at = text.indexOf(open, at + 1))
    tags.push({ at, opening: true });
  for (let at = text.indexOf(close); at !== -1 && at < end; at = text.indexOf(close, at + 1))
    tags.push({ at, opening: false });
  tags.sort((a, b) => a.at - b.at);
  let depth = 1;
  for (let index = tags.length - 1; index >= 0; index--) {
    const found = tags[index]!;
    depth += found.opening ? -1 : 1;
    if (depth === 0) return text.slice(found.at + open.length, end).trim();
  }
  const lastOpen = text.lastIndexOf(open, end - 1);
  return lastOpen === -1 ? undefined : text.slice(lastOpen + open.length, end).trim();
}

/**
 * Extracts `<retain>` and `<summary>` from a compaction reply. Returns
 * `undefined` when there is no non-empty summary: the caller then changes nothing.
 */
export function parseCompactionReply(text: string): CompactionReply | undefined {
  const summary = extractFinalTagBlock(text, 'summary');
  if (summary === undefined || summary === '') return undefined;
  // The retain block is searched before the summary, so a `<retain>` quoted inside the summary is not taken.
  const summaryStart = text.lastIndexOf(summary);
  const retain =
    (summaryStart > 0 ? extractFinalTagBlock(text.slice(0, summaryStart), 'retain') : undefined) ??
    extractFinalTagBlock(text, 'retain') ??
    '';
  return { retain, summary };
}
