import { type ChatMessage, type ToolMessage } from '@ctxkit/core';
import { contentText } from '@ctxkit/core/strategy-kit';

import { isTrimmed, trimmedPlaceholder } from '../cache/trimmed-placeholder';
import { microCompactPlaceholder } from './micro-compact';
import type { ReductionLog } from './reduction-log';
import { toolNameAt } from './tool-call-names';

/** Reason of an output trimmed to its placeholder because the payload would not fit otherwise. */
export const TRIMMED_TO_FIT_REASON = 'tool output trimmed to fit the context window';
/** Reason of a result without a ref micro-compacted because the payload would not fit otherwise. */
export const MICRO_COMPACTED_TO_FIT_REASON = 'tool result micro-compacted to fit the context window';

/** Options of {@link relievePressure}. */
export interface RelievePressureOptions {
  /**
   * First index looked at: the first the payload may send, or the first its window can reach (the
   * history older than that does not fit even with every output replaced, so it changes nothing).
   */
  from: number;
  /** Outputs at or after this index (the current turn) are never replaced. */
  protectFrom: number;
  /** Tokens the messages from `from` on must fit in. */
  targetTokens: number;
  /** Tokens of `messages[index]` as it stands. */
  tokensAt: (index: number) => number;
  /** Tokens of a replacement message. */
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
  /**
   * Outputs the user took back from a trim: they give way only when the view still does not fit
   * with every other older output replaced (then oldest first, like the others).
   */
  keepWhole?: (index: number) => boolean;
  /**
   * Outputs before this index are replaced first, whatever the room (the previous payload replaced
   * them: sending one whole again would change the payload from there on, and the provider's prompt
   * cache would miss everything after it).
   */
  holdThrough?: number;
  /**
   * When more than the held outputs must be replaced, replace until the view fits this many tokens
   * (below `targetTokens`: room for the next calls to only append). @default targetTokens
   */
  cutBackTokens?: number;
  /**
   * Outputs before this index are among the conversation's first messages, which a cut window keeps
   * in front of it (`keepFirstShare`) for what they say: they are never replaced to make room.
   * @default from
   */
  keptHeadEnd?: number;
  log: ReductionLog;
}

/** What {@link relievePressure} did. */
export interface RelievedView {
  /** A new array when anything was replaced, else the input. */
  messages: ReadonlyArray<ChatMessage>;
  /** Outputs replaced. */
  replaced: number;
  /** Tokens of `messages` from `from` on, after the replacements. */
  totalTokens: number;
  /** The replacements made, in index order. */
  replacements: ReadonlyArray<Replacement>;
}

/** One output replaced to relieve pressure: where, its copy, and its tokens before and after. */
export interface Replacement {
  index: number;
  copy: ToolMessage;
  before: number;
  after: number;
}

/** What {@link replacementAt} decides with. */
export type ReplacementOptions = Pick<
  RelievePressureOptions,
  'tokensAt' | 'tokensOf' | 'microCompact' | 'showRefs' | 'withContent'
>;

/**
 * The replacement that relieves pressure at `index`, when there is one: a cached output becomes its
 * `[tool output trimmed; ref=…]` placeholder (or, with `showRefs: false` and micro-compact on,
 * `[Previous: used {tool_name}; ref=…]`), a result without a ref its micro-compact placeholder
 * when it is longer than `minContentLength`; nothing when the message is a placeholder already or
 * the replacement would not be smaller.
 */
export function replacementAt(
  messages: ReadonlyArray<ChatMessage>,
  index: number,
  options: ReplacementOptions,
): Replacement | undefined {
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
  return after < before ? { index, copy, before, after } : undefined;
}

/** `messages` with `replacements` made: a copy, or `messages` itself when there are none. */
export function withReplacements(
  messages: ReadonlyArray<ChatMessage>,
  replacements: ReadonlyArray<Replacement>,
): ReadonlyArray<ChatMessage> {
  if (replacements.length === 0) return messages;
  const result = messages.slice();
  for (const { index, copy } of replacements) result[index] = copy;
  return result;
}

/** `messages` with `replacements` (in index order) made, each recorded in `log`. */
export function applyReplacements(
  messages: ReadonlyArray<ChatMessage>,
  replacements: ReadonlyArray<Replacement>,
  log: ReductionLog,
): ReadonlyArray<ChatMessage> {
  recordReplacements(replacements, log);
  return withReplacements(messages, replacements);
}

/** Records each of `replacements` (in index order) in `log`. */
export function recordReplacements(replacements: ReadonlyArray<Replacement>, log: ReductionLog): void {
  for (const { index, copy, before, after } of replacements) {
    const ref = copy.output_ref?.id;
    const trimmed = isTrimmed(copy);
    const reduction = ref
      ? {
          position: index,
          recoverableFrom: 'tool-output-cache' as const,
          ref,
          tokensBefore: before,
          tokensAfter: after,
        }
      : { position: index, recoverableFrom: 'history' as const, tokensBefore: before, tokensAfter: after };
    log.addOne(
      trimmed ? 'trimmed' : 'micro-compacted',
      trimmed ? TRIMMED_TO_FIT_REASON : MICRO_COMPACTED_TO_FIT_REASON,
      reduction,
    );
  }
}

/**
 * Makes room when a working view does not fit: older tool outputs, oldest first, become their
 * `[tool output trimmed; ref=…]` placeholder (the full output stays in the cache, the ref is named
 * in the text; see `showRefs`), and results without a ref become `[Previous: used {tool_name}]`
 * when micro-compact is on, until the view fits `targetTokens` or no older output is left. Then the
 * room the last replacement freed beyond the need goes back to the newest replaced outputs: each
 * one, newest first, is shown whole again while the view still fits (an output of thousands of
 * tokens that had to go no longer takes the smaller outputs before it along). Nothing is replaced
 * while the view fits; the current turn's outputs never are, and outputs the user took back
 * (`keepWhole`) only after every other older output. Outputs before `holdThrough` are replaced
 * first and never given back; past them the view is relieved down to `cutBackTokens`. The outputs
 * of the kept head (before `keptHeadEnd`) are left as they are. Every
 * replacement kept is recorded in `log` (indexes of `messages`).
 */
export function relievePressure(messages: ReadonlyArray<ChatMessage>, options: RelievePressureOptions): RelievedView {
  let total = 0;
  for (let index = options.from; index < messages.length; index++) total += options.tokensAt(index);
  if (total <= options.targetTokens) return { messages, replaced: 0, totalTokens: total, replacements: [] };
  const replacements: Replacement[] = [];
  const replace = (index: number): void => {
    const replacement = replacementAt(messages, index, options);
    if (!replacement) return;
    replacements.push(replacement);
    total -= replacement.before - replacement.after;
  };
  const end = Math.min(options.protectFrom, messages.length);
  const { keepWhole } = options;
  // The kept head's outputs stay as they are: the outputs past them make the room, then the window's cut.
  const first = Math.min(end, Math.max(options.from, options.keptHeadEnd ?? options.from));
  const held = Math.max(first, Math.min(end, options.holdThrough ?? first));
  for (let index = first; index < held; index++) if (!keepWhole?.(index)) replace(index);
  const target =
    total > options.targetTokens
      ? Math.min(options.targetTokens, options.cutBackTokens ?? options.targetTokens)
      : options.targetTokens;
  for (let index = held; index < end && total > target; index++) if (!keepWhole?.(index)) replace(index);
  // The outputs the user took back give way last.
  const inOrder = replacements.length;
  for (let index = first; keepWhole && index < end && total > target; index++) if (keepWhole(index)) replace(index);
  const outOfOrder = replacements.length > inOrder;
  // Give the room back, newest first: a replacement the view fits without is undone.
  const kept: Replacement[] = [];
  for (let position = replacements.length - 1; position >= 0; position--) {
    const replacement = replacements[position]!;
    const freed = replacement.before - replacement.after;
    if ((replacement.index >= held || position >= inOrder) && total + freed <= target) total += freed;
    else kept.push(replacement);
  }
  kept.reverse();
  if (outOfOrder) kept.sort((a, b) => a.index - b.index);
  return {
    messages: applyReplacements(messages, kept, options.log),
    replaced: kept.length,
    totalTokens: total,
    replacements: kept,
  };
}
