import type { PreviewItem, ReductionPreview } from '@ctxkit/core';

/** Consecutive history indexes as one range: `#3–#7 (5 messages, 1,240 tokens)`. */
function ranges(items: readonly PreviewItem[]): string {
  const sorted = [...items].sort((a, b) => a.index - b.index);
  const parts: string[] = [];
  for (let start = 0; start < sorted.length;) {
    let end = start;
    while (end + 1 < sorted.length && sorted[end + 1]!.index === sorted[end]!.index + 1) end++;
    const run = sorted.slice(start, end + 1);
    const tokens = run.reduce((sum, item) => sum + item.tokens, 0).toLocaleString('en-US');
    const first = run[0]!;
    parts.push(
      run.length === 1
        ? `#${first.index} ${first.role} (${tokens} tokens) ${JSON.stringify(first.excerpt)}`
        : `#${first.index}–#${run[run.length - 1]!.index} (${run.length} messages, ${tokens} tokens)`,
    );
    start = end + 1;
  }
  return parts.join(', ');
}

/**
 * A preview as the lines `ctxkit simulate --preview` prints before a call: what the compose (and the
 * reduction it starts) would leave out (`-`), fold or compact (`~`) and trim (`✂`), then the strategy's notes.
 */
export function renderReductionPreview(preview: ReductionPreview, call: number): string {
  const lines = [`preview of call ${call}: ${preview.payloadTokens.toLocaleString('en-US')} tokens`];
  const rows: Array<[string, string, readonly PreviewItem[]]> = [
    ['-', 'leaves out', preview.dropped],
    ['~', 'folds', preview.folded],
    ['~', 'compacts', preview.compacted],
    ['✂', 'trims', preview.trimmed],
  ];
  for (const [mark, verb, items] of rows)
    if (items.length > 0) lines.push(`  ${mark} ${verb.padEnd(10)} ${ranges(items)}`);
  if (lines.length === 1 && preview.notes.length === 0) lines.push('  nothing to reduce');
  for (const note of preview.notes) lines.push(`  · ${note}`);
  return `${lines.join('\n')}\n`;
}
