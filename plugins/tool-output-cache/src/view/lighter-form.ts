import { type ChatMessage, type ToolMessage } from '@ctxkit/core';
import { callAnswered, contentText, type LighterForm } from '@ctxkit/core/strategy-kit';

import type { ReductionLog } from './reduction-log';

const PREFIX = '[tool output trimmed; ref=';

/** What the tool output budget, or a payload under pressure, sends instead of an older output (with its ref). */
export function trimmedPlaceholder(refId: string): string {
  return `${PREFIX}${refId}]`;
}

/** True when a tool message shows the placeholder of its ref (compared in place, none built). */
export function isTrimmed(message: Readonly<ToolMessage>): boolean {
  const ref = message.output_ref;
  if (ref === undefined) return false;
  const text = contentText(message.content);
  return (
    text.length === PREFIX.length + ref.id.length + 1 &&
    text.startsWith(PREFIX) &&
    text.startsWith(ref.id, PREFIX.length) &&
    text.endsWith(']')
  );
}

/** `[Previous: used {tool_name}]`, or `[Previous: used {tool_name}; ref=<id>]` for an output the cache holds. */
export function microCompactPlaceholder(toolName: string, refId?: string): string {
  return refId === undefined ? `[Previous: used ${toolName}]` : `[Previous: used ${toolName}; ref=${refId}]`;
}

const PLACEHOLDER = /^\[Previous: used [^\]\n]*\]$/;

export function isMicroCompacted(message: Readonly<ToolMessage>): boolean {
  return PLACEHOLDER.test(contentText(message.content));
}

/** The tool name the message at `index` answers; `'unknown'` when no call matches from `from` (the view's start) on. */
export function toolNameAt(messages: ReadonlyArray<ChatMessage>, index: number, from = 0): string {
  return callAnswered(messages, index, from)?.function.name ?? 'unknown';
}

export const TRIMMED_TO_FIT_REASON = 'tool output trimmed to fit the context window';
export const MICRO_COMPACTED_TO_FIT_REASON = 'tool result micro-compacted to fit the context window';

export interface LighterFormOptions {
  /** Tokens of `messages[index]` as it stands. */
  tokensAt: (index: number) => number;
  tokensOf: (message: ToolMessage) => number;
  /** Micro-compact results longer than `minContentLength` characters; `undefined`: leave them. */
  microCompact: { minContentLength: number } | undefined;
  /** False while the expand tools are not offered: a cached output is then micro-compacted (if on). @default true */
  showRefs?: boolean;
  /** Makes the copy (the same from turn to turn, so that counts stay cached). */
  withContent: (message: ToolMessage, content: string) => ToolMessage;
}

/** The tool message at `index` under pressure: trimmed (see `showRefs`) or micro-compacted, when that is smaller. */
export function lighterFormAt(
  messages: ReadonlyArray<ChatMessage>,
  index: number,
  options: LighterFormOptions,
): LighterForm | undefined {
  const message = messages[index]!;
  if (message.role !== 'tool') return undefined;
  let content: string;
  if (message.output_ref && (options.showRefs !== false || !options.microCompact)) {
    if (isTrimmed(message)) return undefined;
    content = trimmedPlaceholder(message.output_ref.id);
  } else {
    const text = contentText(message.content);
    if (!options.microCompact || text.length <= options.microCompact.minContentLength) return undefined;
    content = microCompactPlaceholder(toolNameAt(messages, index), message.output_ref?.id);
    if (text === content) return undefined;
  }
  const before = options.tokensAt(index);
  const copy = options.withContent(message, content);
  const after = options.tokensOf(copy);
  return after < before ? { index, message: copy, before, after } : undefined;
}

/** Records the lighter forms a layout used (in index order) in `log`. */
export function recordLighterForms(forms: ReadonlyArray<LighterForm>, log: ReductionLog): void {
  for (const { index: position, message, before: tokensBefore, after: tokensAfter } of forms) {
    const ref = (message as ToolMessage).output_ref?.id;
    const trimmed = isTrimmed(message as ToolMessage);
    log.add(
      trimmed ? 'trimmed' : 'micro-compacted',
      trimmed ? TRIMMED_TO_FIT_REASON : MICRO_COMPACTED_TO_FIT_REASON,
      ref
        ? { position, recoverableFrom: 'tool-output-cache', ref, tokensBefore, tokensAfter }
        : { position, recoverableFrom: 'history', tokensBefore, tokensAfter },
    );
  }
}
