import { type ITokenCounter } from '@ctxkit/core';
import { baseName, languageOfPath, type SourceLanguage } from '@ctxkit/core/strategy-kit';

import { outlineSource } from './source-outline';

export interface OutlineViewOptions {
  /** Path of the file (for the language and the heading). */
  path?: string;
  language?: SourceLanguage;
  /** The view never exceeds this many tokens by `counter`. */
  maxTokens: number;
  counter: ITokenCounter;
}

/** The outline view and what it shows. */
export interface OutlineView {
  text: string;
  lineCount: number;
  /** Lines shown verbatim: `[first, last]` ranges, 1-based. */
  shownRanges: Array<[number, number]>;
  tokens: number;
}

/**
 * Small-context mode B, "outline + part": for a file too large for the budget, its line count, its
 * structure (top-level declarations with line ranges), the first and last lines that fit, and an
 * invitation to ask for more with offset/limit. The result never exceeds `maxTokens`.
 */
export function renderOutlineView(text: string, options: OutlineViewOptions): OutlineView {
  const language = options.language ?? languageOfPath(options.path);
  const outline = outlineSource(text, language);
  const name = options.path ? baseName(options.path) : 'The output';
  const heading =
    `${options.path ? `File ${name}` : name} has ${outline.lineCount} ` +
    `lines${language !== 'text' ? ` (${language})` : ''}.`;
  const structure = outline.entries.length
    ? `Structure:\n` +
      `${outline.entries
        .map(
          (e) =>
            `  ${`${e.startLine}-${e.endLine}`.padStart(11)}: ` +
            `${e.kind === e.name ? e.kind : `${e.kind} ${e.name}`}`,
        )
        .join('\n')}`
    : '';
  const invitation = `Ask again with offset and limit (line numbers) to read other parts.`;

  const lineStarts: number[] = [0];
  for (let at = text.indexOf('\n'); at !== -1; at = text.indexOf('\n', at + 1)) lineStarts.push(at + 1);
  const lineAt = (index: number) =>
    text.slice(lineStarts[index]!, index + 1 < lineStarts.length ? lineStarts[index + 1]! - 1 : text.length);
  const total = outline.lineCount;

  const compose = (head: number, tail: number, withStructure: boolean): string => {
    const parts = [heading];
    if (withStructure && structure) parts.push(structure);
    if (head > 0) {
      const shown: string[] = [];
      for (let i = 0; i < head; i++) shown.push(`${String(i + 1).padStart(6)}\t${lineAt(i)}`);
      parts.push(`Lines 1-${head}:\n${shown.join('\n')}`);
    }
    if (tail > 0) {
      const shown: string[] = [];
      for (let i = total - tail; i < total; i++) shown.push(`${String(i + 1).padStart(6)}\t${lineAt(i)}`);
      parts.push(`Lines ${total - tail + 1}-${total}:\n${shown.join('\n')}`);
    }
    parts.push(invitation);
    return parts.join('\n\n');
  };

  const fits = (candidate: string) => options.counter.countUpTo(candidate, options.maxTokens) <= options.maxTokens;
  let withStructure = true;
  if (!fits(compose(0, 0, true))) withStructure = false;
  // Grow head and tail together (2:1) while the view fits: a binary search over the number of lines.
  let low = 0;
  let high = Math.min(total, 400);
  while (low < high) {
    const mid = Math.ceil((low + high) / 2);
    const head = Math.ceil((mid * 2) / 3);
    const tail = Math.min(total - head, mid - head);
    if (fits(compose(head, tail, withStructure))) low = mid;
    else high = mid - 1;
  }
  const head = Math.ceil((low * 2) / 3);
  const tail = Math.min(total - head, low - head);
  let view = compose(head, tail, withStructure);
  if (!fits(view)) view = fits(heading) ? heading : '';
  const shownRanges: Array<[number, number]> = [];
  if (head > 0) shownRanges.push([1, head]);
  if (tail > 0) shownRanges.push([total - tail + 1, total]);
  return { text: view, lineCount: total, shownRanges, tokens: options.counter.count(view) };
}
