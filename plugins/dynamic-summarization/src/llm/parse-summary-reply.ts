const OPEN = /<summary\s*>/gi;
const CLOSE = /<\/summary\s*>/gi;

/**
 * Takes the model's final well-formed `<summary>…</summary>` block: for each closing tag, the
 * nearest opening tag before it with no other closing tag in between. The last such block wins, so
 * a reply that first quotes a stray `</summary>` (or drafts and then corrects itself) still gives
 * its final answer. Returns `undefined` when the reply has no well-formed block or the block is
 * blank.
 */
export function parseSummaryReply(reply: string): string | undefined {
  const opens: number[] = [];
  const openEnds = new Map<number, number>();
  for (let match = OPEN.exec(reply); match !== null; match = OPEN.exec(reply)) {
    opens.push(match.index);
    openEnds.set(match.index, match.index + match[0].length);
  }
  OPEN.lastIndex = 0;
  const closes: number[] = [];
  for (let match = CLOSE.exec(reply); match !== null; match = CLOSE.exec(reply)) closes.push(match.index);
  CLOSE.lastIndex = 0;
  for (let c = closes.length - 1; c >= 0; c--) {
    const close = closes[c]!;
    const previousClose = c > 0 ? closes[c - 1]! : -1;
    // The opening tag nearest before this close, after the previous close.
    let open: number | undefined;
    for (const candidate of opens) if (candidate > previousClose && candidate < close) open = candidate;
    if (open === undefined) continue;
    const body = reply.slice(openEnds.get(open)!, close).trim();
    if (body.length > 0) return body;
  }
  return undefined;
}
