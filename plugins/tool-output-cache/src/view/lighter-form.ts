import { type ChatMessage, type ToolMessage } from '@ctxkit/core';
import { contentText, type LighterForm } from '@ctxkit/core/strategy-kit';

import { isTrimmed, trimmedPlaceholder } from '../cache/trimmed-placeholder';
import { microCompactPlaceholder } from './micro-compact';
import type { ReductionLog } from './reduction-log';
import { toolNameAt } from './tool-call-names';

/** Reason of an output trimmed to its placeholder because the payload would not fit otherwise. */
export const TRIMMED_TO_FIT_REASON = 'tool output trimmed to fit the context window';
/** Reason of a result without a ref micro-compacted because the payload would not fit otherwise. */
export const MICRO_COMPACTED_TO_FIT_REASON = 'tool result micro-compacted to fit the context window';

/** What {@link lighterFormAt} decides with. */
export interface LighterFormOptions {
  /** Tokens of `messages[index]` as it stands. */
  tokensAt: (index: number) => number;
  /** Tokens of a lighter form. */
  tokensOf: (message: ToolMessage) => number;
  /**
   * Micro-compact results that have no ref (`minContentLength`: only results longer than this many
   * characters), or `undefined` to leave them as they are.
   */
  microCompact: { minContentLength: number } | undefined;
  /**
   * Cached outputs become `[tool output trimmed; ref=…]` (true: the model can expand them) or, when
   * micro-compact is on, the shorter `[Previous: used {tool_name}]` (false: the expand tools are not
   * offered, so naming the ref would only take room; the message keeps its `output_ref`).
   * @default true
   */
  showRefs?: boolean;
  /** Makes the copy (the strategy reuses copies across turns so that counts stay cached). */
  withContent: (message: ToolMessage, content: string) => ToolMessage;
}

/**
 * The lighter form of the tool message at `index` that core's layout uses under pressure, when there is one: a cached
 * output becomes its `[tool output trimmed; ref=…]` placeholder (or, with `showRefs: false` and micro-compact on,
 * `[Previous: used {tool_name}; ref=…]`), a result without a ref its micro-compact placeholder when it is longer than
 * `minContentLength`; nothing when the message is a placeholder already or the form would not be smaller.
 */
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

/** Records each of the lighter forms a layout used (in index order) in `log`. */
export function recordLighterForms(forms: ReadonlyArray<LighterForm>, log: ReductionLog): void {
  for (const { index: position, message, before: tokensBefore, after: tokensAfter } of forms) {
    const ref = (message as ToolMessage).output_ref?.id;
    const [action, reason] = isTrimmed(message as ToolMessage)
      ? (['trimmed', TRIMMED_TO_FIT_REASON] as const)
      : (['micro-compacted', MICRO_COMPACTED_TO_FIT_REASON] as const);
    log.add(
      action,
      reason,
      ref
        ? { position, recoverableFrom: 'tool-output-cache', ref, tokensBefore, tokensAfter }
        : { position, recoverableFrom: 'history', tokensBefore, tokensAfter },
    );
  }
}
