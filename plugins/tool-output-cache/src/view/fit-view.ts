import { type ChatMessage, type ToolMessage } from '@ctxkit/core';
import { type ComposedPayload, contentText } from '@ctxkit/core/strategy-kit';

import { affordsExpandTools } from '../cache/offered-tools';
import type { AlignedView } from './align-view';
import type { ReductionLog } from './reduction-log';
import { relievePressure, type Replacement, type ReplacementOptions } from './relieve-pressure';
import { underPressure } from './under-pressure';

const REF_IN_TEXT = /to_[0-9a-f]{32}/;

/** What {@link fitView} works with. */
export interface FitViewOptions {
  /** The working view laid over the caller's history. */
  aligned: AlignedView;
  /** First position the payload can reach (see `PreparedView.region`): older outputs are not looked at. */
  region: number;
  /** Where the current turn starts: its outputs are never replaced. */
  protectFrom: number;
  /** True when the view holds an output that is not shown whole. */
  hidesOutput: boolean;
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
  /** True when `message` carries a ref but does not show its whole output. */
  hides(message: ChatMessage): boolean;
  /** Makes a placeholder copy (the same object from call to call). */
  withContent(message: ToolMessage, content: string): ToolMessage;
  /** Micro-compact results without a ref under pressure (`undefined`: micro-compact is off). */
  microCompact: { minContentLength: number } | undefined;
  /**
   * Outputs the user took back from a trim: replaced under pressure only after every other older output (see
   * `relievePressure`).
   */
  keepWhole?: (index: number) => boolean;
  /**
   * The room a payload has for history (what the budget leaves after the system prompt and the tools
   * offered), when it is known without composing (no dynamic context, no memory block). With it, a
   * view whose reachable part (`region` past its start) does not fit even with every older output
   * replaced is relieved before the first probe: that probe could only report the pressure.
   */
  room?: (offerCache: boolean) => number;
  /**
   * Replaces every older output from `region` on (what {@link relievePressure} comes to when the view
   * cannot fit even so).
   */
  relieveAll?: (
    messages: ReadonlyArray<ChatMessage>,
    region: number,
    protectFrom: number,
    options: ReplacementOptions,
    log: ReductionLog,
  ) => RelievedAll;
  /**
   * Outputs before this index stay replaced under pressure (the previous payload replaced them; see `relievePressure`).
   */
  holdThrough?: number;
  /** When more outputs must be replaced, relieve the view down to this share of its room. @default 1 */
  cutBackRatio?: number;
  /**
   * With `cutBackRatio` below 1: share of the room the conversation's first messages keep in front of
   * a cut window. Their outputs are not replaced to make room (see `keptHeadEnd` of
   * {@link relievePressure}). @default 0
   */
  keepFirstShare?: number;
  /**
   * Offer the expand and grep definitions on every payload they are affordable in, not only once
   * the payload hides an output, so that the tool list stays the same from the first payload on.
   * @default false
   */
  offerCacheToolsAlways?: boolean;
}

/**
 * What replacing every older output did: the view, how many it replaced, and those of its replacements the last call
 * did not make.
 */
export interface RelievedAll {
  messages: ReadonlyArray<ChatMessage>;
  replaced: number;
  made: ReadonlyArray<Replacement>;
}

/** The view as it will be composed. */
export interface FittedView {
  messages: ReadonlyArray<ChatMessage>;
  /** Whether the payload offers the expand and grep definitions. */
  offerCache: boolean;
  /** True when the whole view did not fit the first probe. */
  underPressure: boolean;
  /** The last probe composed (the payload itself when it was composed with `messages` and `offerCache`), if any. */
  last: { composed: ComposedPayload; messages: ReadonlyArray<ChatMessage>; offerCache: boolean } | undefined;
  /**
   * The replacements made to relieve pressure, in index order (when every older output was replaced, those the last
   * call did not make).
   */
  made: ReadonlyArray<Replacement>;
  /** One past the newest output replaced to relieve pressure, undefined when none was. */
  relievedThrough: number | undefined;
}

/**
 * Fits a working view to the budget. While the whole view fits it is sent as it is; when it does
 * not (the composer would drop or cut history, or shorten the summary), older outputs become
 * placeholders, oldest first and only as many as needed ({@link relievePressure}); with `keepFirstShare`
 * the outputs of the kept head stay whole. The expand and
 * grep definitions are offered only while the payload holds an output that is not shown whole (or
 * the summary names a ref) or, with `offerCacheToolsAlways`, on every payload; and only when they
 * take at most their share of the room.
 */
export function fitView(options: FitViewOptions): FittedView {
  const { aligned, cacheToolTokens } = options;
  const cacheOn = cacheToolTokens !== undefined;
  let messages: ReadonlyArray<ChatMessage> = aligned.messages;
  const memoryRefs = aligned.memory.some((message) => REF_IN_TEXT.test(contentText(message.content)));
  let offerCache = cacheOn && (options.offerCacheToolsAlways === true || memoryRefs || options.hidesOutput);
  // The region starts past the first position: the view does not fit even with every older output replaced.
  const hopeless = options.region > aligned.startIndex;
  const known = options.room && hopeless;
  let composed: ComposedPayload | undefined = known ? undefined : options.probe(messages, offerCache);
  const roomOf = (offer: boolean): number => (composed ? composed.roomTokens : options.room!(offer));
  // The room without the expand tools decides whether they are worth their tokens at all.
  const affordable =
    cacheOn && affordsExpandTools(cacheToolTokens, roomOf(offerCache) + (offerCache ? cacheToolTokens : 0));
  if (offerCache && !affordable) {
    offerCache = false;
    if (composed) composed = options.probe(messages, offerCache);
  }
  const pressure = composed ? underPressure(composed) : true;
  let last = composed && { composed, messages, offerCache };
  let made: ReadonlyArray<Replacement> = [];
  let relievedThrough: number | undefined;
  if (pressure) {
    const toolRoom = affordable && !offerCache ? cacheToolTokens : 0;
    const unrelieved = messages;
    const replacing: ReplacementOptions = {
      tokensAt: (index) => options.tokensAt(unrelieved, index),
      tokensOf: options.tokensOf,
      microCompact: options.microCompact,
      showRefs: affordable,
      withContent: options.withContent,
    };
    const targetTokens = roomOf(offerCache) - (composed ? composed.payload.stats.sections.memory : 0) - toolRoom;
    const cutBack = options.cutBackRatio !== undefined && options.cutBackRatio < 1;
    const keptHeadEnd =
      cutBack && (options.keepFirstShare ?? 0) > 0
        ? headEnd(
            unrelieved,
            aligned.startIndex,
            options.protectFrom,
            Math.floor(targetTokens * options.keepFirstShare!),
            replacing.tokensAt,
          )
        : undefined;
    const relieved =
      hopeless && options.relieveAll
        ? options.relieveAll(messages, options.region, options.protectFrom, replacing, options.log)
        : relievePressure(messages, {
            ...replacing,
            from: options.region,
            protectFrom: options.protectFrom,
            targetTokens,
            ...(cutBack ? { cutBackTokens: Math.floor(targetTokens * options.cutBackRatio!) } : {}),
            ...(keptHeadEnd !== undefined ? { keptHeadEnd } : {}),
            ...(options.holdThrough !== undefined ? { holdThrough: options.holdThrough } : {}),
            log: options.log,
            ...(options.keepWhole ? { keepWhole: options.keepWhole } : {}),
          });
    made = 'made' in relieved ? relieved.made : relieved.replacements;
    if ('made' in relieved) relievedThrough = relieved.replaced > 0 ? options.protectFrom : undefined;
    else if (relieved.replacements.length > 0)
      relievedThrough = relieved.replacements[relieved.replacements.length - 1]!.index + 1;
    if (relieved.replaced > 0) {
      messages = relieved.messages;
      offerCache = affordable && (offerCache || hidesFrom(messages, options.region, options.hides));
    }
    if (relieved.replaced > 0 || !composed) {
      composed = options.probe(messages, offerCache);
      last = { composed, messages, offerCache };
    }
  }
  composed ??= options.probe(messages, offerCache);
  // The window cut an output of the current turn: its ref is worth expanding.
  if (!offerCache && affordable && hidesFrom(composed.payload.messages, 0, options.hides)) offerCache = true;
  return { messages, offerCache, underPressure: pressure, last, made, relievedThrough };
}

/** One past the first messages from `start` (before `end`) that take at most `tokens` together as they stand. */
function headEnd(
  messages: ReadonlyArray<ChatMessage>,
  start: number,
  end: number,
  tokens: number,
  tokensAt: (index: number) => number,
): number {
  let index = start;
  let taken = 0;
  const stop = Math.min(end, messages.length);
  while (index < stop) {
    const next = tokensAt(index);
    if (taken + next > tokens) break;
    taken += next;
    index++;
  }
  return index;
}

function hidesFrom(
  messages: ReadonlyArray<ChatMessage>,
  from: number,
  hides: (message: ChatMessage) => boolean,
): boolean {
  for (let index = from; index < messages.length; index++) if (hides(messages[index]!)) return true;
  return false;
}
