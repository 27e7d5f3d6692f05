import type { ReasoningItem } from '@ctxkit/core';

/** What a compaction reply holds. */
export interface CompactionReply {
  /** The `<retain>` block, `''` when the reply has none. */
  retain: string;
  /** The `<summary>` block; never empty, but for a provider compaction whose item is encrypted (`''`). */
  summary: string;
  /** The provider's compaction item, sent back unchanged; `summary` is then its readable text. */
  item?: ReasoningItem;
}

/**
 * The model's final `<tag>…</tag>` block, or `undefined`. It ends at the last closing tag and starts at the opening tag
 * that balances it, so that a draft block before it is skipped and a quoted pair stays inside. When closing tags
 * outnumber opening ones (a quoted `</summary>`), it starts at the last opening tag.
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

/** The `<retain>` and `<summary>` of a compaction reply; `undefined` without a non-empty summary. */
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
