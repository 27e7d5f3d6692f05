import { contentText, type ChatMessage, type ComposedPayload, type ToolMessage } from '@ctxkit/core';
import { affordsExpandTools } from '../cache/offered-tools';
import type { AlignedView } from './align-view';
import { currentTurnStart } from './current-turn';
import type { ReductionLog } from './reduction-log';
import { relievePressure } from './relieve-pressure';
import { underPressure } from './under-pressure';
import type { ViewEntry } from './view-entry';

const REF_IN_TEXT = /to_[0-9a-f]{32}/;

/** What {@link fitView} works with. */
export interface FitViewOptions {
  /** The working view laid over the caller's history. */
  aligned: AlignedView;
  /** The working view's entries (they tell where the current turn starts). */
  entries: ReadonlyArray<ViewEntry>;
  /** Where the replacements made to fit are recorded. */
  log: ReductionLog;
  /** Tokens of the expand and grep definitions, or `undefined` while the cache is off. */
  cacheToolTokens: number | undefined;
  /** Composes a probe payload (no events) of `messages`, with the expand and grep definitions or without. */
  probe(messages: ReadonlyArray<ChatMessage>, offerCache: boolean): ComposedPayload;
  /** Tokens of `messages[index]` as the composer counts it. */
  tokensAt(messages: ReadonlyArray<ChatMessage>, index: number): number;
  /** Tokens of a replacement message. */
  tokensOf(message: ToolMessage): number;
  /** True when a tool message from `from` on does not show its whole output. */
  hidesOutput(messages: ReadonlyArray<ChatMessage>, from: number): boolean;
  /** Makes a placeholder copy (the same object from call to call). */
  withContent(message: ToolMessage, content: string): ToolMessage;
  /** Micro-compact results without a ref under pressure (`undefined`: micro-compact is off). */
  microCompact: { minContentLength: number } | undefined;
}

/** The view as it will be composed. */
export interface FittedView {
  messages: ReadonlyArray<ChatMessage>;
  /** Whether the payload offers the expand and grep definitions. */
  offerCache: boolean;
  /** True when the whole view did not fit the first probe. */
  underPressure: boolean;
}

/**
 * Fits a working view to the budget. While the whole view fits it is sent as it is; when it does
 * not (the composer would drop or cut history, or shorten the summary), older outputs become
 * placeholders, oldest first and only as many as needed ({@link relievePressure}). The expand and
 * grep definitions are offered only while the payload holds an output that is not shown whole (or
 * the summary names a ref), and only when they take at most their share of the room.
 */
export function fitView(options: FitViewOptions): FittedView {
  const { aligned, cacheToolTokens } = options;
  const cacheOn = cacheToolTokens !== undefined;
  let messages: ReadonlyArray<ChatMessage> = aligned.messages;
  const memoryRefs = aligned.memory.some((message) => REF_IN_TEXT.test(contentText(message.content)));
  let offerCache = cacheOn && (memoryRefs || options.hidesOutput(messages, aligned.startIndex));
  let composed = options.probe(messages, offerCache);
  // The room without the expand tools decides whether they are worth their tokens at all.
  const affordable = cacheOn && affordsExpandTools(cacheToolTokens, composed.roomTokens + (offerCache ? cacheToolTokens : 0));
  if (offerCache && !affordable) {
    offerCache = false;
    composed = options.probe(messages, offerCache);
  }
  const pressure = underPressure(composed);
  if (pressure) {
    const toolRoom = affordable && !offerCache ? cacheToolTokens : 0;
    const currentEntry = options.entries[currentTurnStart(options.entries)];
    const turnStart = currentEntry === undefined ? messages.length : currentEntry.carried || currentEntry.source === null ? aligned.startIndex : currentEntry.source;
    const relieved = relievePressure(messages, {
      from: aligned.startIndex,
      protectFrom: turnStart,
      targetTokens: composed.roomTokens - composed.payload.stats.sections.memory - toolRoom,
      tokensAt: (index) => options.tokensAt(messages, index),
      tokensOf: options.tokensOf,
      microCompact: options.microCompact,
      showRefs: affordable,
      withContent: options.withContent,
      log: options.log,
    });
    if (relieved.replaced > 0) {
      messages = relieved.messages;
      offerCache = affordable && (offerCache || options.hidesOutput(messages, aligned.startIndex));
      composed = options.probe(messages, offerCache);
    }
  }
  // The window cut an output of the current turn: its ref is worth expanding.
  if (!offerCache && affordable && options.hidesOutput(composed.payload.messages, 0)) offerCache = true;
  return { messages, offerCache, underPressure: pressure };
}
