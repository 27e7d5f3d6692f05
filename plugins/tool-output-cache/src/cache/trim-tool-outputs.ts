import type { ToolMessage } from '@ctxkit/core';
import { contentText } from '@ctxkit/core';
import type { ReductionLog } from '../view/reduction-log';
import type { ViewEntry } from '../view/view-entry';

/** The placeholder of a trimmed tool output. */
export function trimmedPlaceholder(refId: string): string {
  return `[tool output trimmed; ref=${refId}]`;
}

/** True when a tool message shows the trimmed placeholder of its ref. */
export function isTrimmed(message: Readonly<ToolMessage>): boolean {
  return message.output_ref !== undefined && contentText(message.content) === trimmedPlaceholder(message.output_ref.id);
}

/** Options of {@link trimToolOutputs}. */
export interface TrimToolOutputsOptions {
  /** Token budget of all tool outputs together. */
  budgetTokens: number;
  /** Tokens of one tool message as it would be sent. */
  tokensOf: (message: ToolMessage) => number;
  log?: ReductionLog;
  reason?: string;
  /** Entries at or after this index are never trimmed (the current turn when fitting a budget). */
  protectFrom?: number;
  withContent?: (message: ToolMessage, content: string) => ToolMessage;
}

/**
 * The tool output budget: when the tool outputs together pass the budget, the oldest ones (only those with an
 * `output_ref`, so nothing is lost) are replaced by `[tool output trimmed; ref=<id>]` until the total
 * fits; the newest are kept first. The copy keeps `output_ref`. Returns a new array and the total
 * after trimming.
 */
export function trimToolOutputs(entries: ReadonlyArray<ViewEntry>, options: TrimToolOutputsOptions): { entries: ViewEntry[]; totalTokens: number } {
  const result = [...entries];
  const withContent = options.withContent ?? ((message: ToolMessage, content: string) => ({ ...message, content }));
  const tokens = new Map<number, number>();
  let total = 0;
  entries.forEach((entry, index) => {
    if (entry.message.role !== 'tool') return;
    const count = options.tokensOf(entry.message);
    tokens.set(index, count);
    total += count;
  });
  const protectFrom = options.protectFrom ?? entries.length;
  for (let index = 0; index < entries.length && total > options.budgetTokens && index < protectFrom; index++) {
    const entry = entries[index]!;
    if (entry.message.role !== 'tool') continue;
    const message = entry.message;
    if (!message.output_ref || isTrimmed(message)) continue;
    const copy = withContent(message, trimmedPlaceholder(message.output_ref.id));
    const before = tokens.get(index) ?? 0;
    const after = options.tokensOf(copy);
    if (after >= before) continue;
    result[index] = { ...entry, message: copy };
    total -= before - after;
    if (entry.source !== null && options.log) {
      options.log.add('trimmed', { from: entry.source }, {
        reason: options.reason ?? 'tool outputs passed the tool output budget',
        recoverableFrom: 'tool-output-cache',
        refs: [message.output_ref.id],
        tokensBefore: before,
        tokensAfter: after,
      });
    }
  }
  return { entries: result, totalTokens: total };
}
