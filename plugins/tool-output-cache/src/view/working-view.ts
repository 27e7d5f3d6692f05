import { contentText, utf8ByteLength, type ChatMessage, type TokenCounter, type ToolMessage } from '@ctxkit/core';
import type { CachedInfo, CachedOutputs } from '../cache/cached-outputs';
import { looksBinary } from '../cache/looks-binary';
import { isTrimmed, trimToolOutputs } from '../cache/trim-tool-outputs';
import type { ResolvedToolOutputCacheStrategyConfig } from '../tool-output-cache-strategy-config';
import { currentTurnStart } from './current-turn';
import { isMicroCompacted, microCompact } from './micro-compact';
import { ReductionLog } from './reduction-log';
import { ViewCopies } from './view-copies';
import type { ViewEntry } from './view-entry';

/** How one tool message of the caller is shown: its copy with a view and ref, and what the cache knows of it. */
export interface ShownOutput {
  message: ToolMessage;
  info: CachedInfo;
  /** True when the copy shows an in-context view that cut the output. */
  cut: boolean;
}

/** The working view of one call: what would be sent for each message, before it is fitted to the budget. */
export interface WorkingView {
  /** The history mapped onto the compaction, tool outputs as views, micro-compacted (`when: "always"`) and trimmed to the tool output budget. */
  entries: ViewEntry[];
  /** The reductions the view made (indexes of the caller's history). */
  log: ReductionLog;
  /** Outputs stored for the first time while the view was built. */
  newlyCached: number;
  /** How each cached tool message of the caller is shown: lets a compaction re-lay the view without caching again. */
  shown: ReadonlyMap<ChatMessage, ShownOutput>;
}

/** What a {@link WorkingViewBuilder} needs. */
export interface WorkingViewBuilderOptions {
  config: ResolvedToolOutputCacheStrategyConfig;
  counter: TokenCounter;
  outputs: CachedOutputs;
  /** Token budget of all tool outputs. */
  toolOutputBudget: number;
}

/**
 * Builds the working view of a caller's history, once per call: each tool output cached (once per
 * message object) and shown as a memoized copy with its view and `output_ref`, micro-compacted when
 * `microCompact.when` is `always`, and trimmed to the tool output budget (never the current turn's).
 * Copies are the same objects from call to call, so token counts stay cached.
 */
export class WorkingViewBuilder {
  private readonly copies = new ViewCopies();
  /** View messages that show their whole output (the others hide part of it behind their ref). */
  private readonly wholeViews = new WeakSet<ChatMessage>();

  constructor(private readonly options: WorkingViewBuilderOptions) {}

  /** The working view of `entries` (the caller's history mapped onto the compaction). */
  async build(entries: ReadonlyArray<ViewEntry>, turn: number): Promise<WorkingView> {
    const shown = new Map<ChatMessage, ShownOutput>();
    let newlyCached = 0;
    if (this.options.config.toolOutputCache.enabled) {
      for (const entry of entries) {
        if (entry.message.role !== 'tool' || shown.has(entry.message)) continue;
        const { info, stored } = await this.options.outputs.ensure(entry.message, turn);
        if (!info) continue;
        if (stored) newlyCached++;
        shown.set(entry.message, this.show(entry.message, info));
      }
    }
    return this.lay(entries, shown, newlyCached);
  }

  /** The view of a history mapped anew (after a compaction), from what `view` already cached: no output is cached again. */
  rebase(view: WorkingView, entries: ReadonlyArray<ViewEntry>): WorkingView {
    return this.lay(entries, view.shown, view.newlyCached);
  }

  /** `message` with other content (same ref), the same copy from call to call. */
  withContent(message: ToolMessage, content: string): ToolMessage {
    return this.copies.withContent(message, content);
  }

  /** True when a tool message from `from` on carries a ref but does not show its whole output (a view, a placeholder, a cut). */
  hidesOutput(messages: ReadonlyArray<ChatMessage>, from: number): boolean {
    for (let index = from; index < messages.length; index++) {
      const message = messages[index]!;
      if (message.role === 'tool' && message.output_ref && !this.wholeViews.has(message)) return true;
    }
    return false;
  }

  /**
   * How a cached output is shown. One within the per-message size whose view only cut long lines is
   * shown whole: like every other reduction, the view's cut waits for budget pressure (which turns
   * older outputs into placeholders). With `microCompact.when: "always"` views are always used.
   */
  private show(original: ToolMessage, info: CachedInfo): ShownOutput {
    const { config } = this.options;
    const raw = contentText(original.content);
    const maxBytes = config.toolOutputCache.maxMessageBytes;
    // UTF-8 bytes are never fewer than UTF-16 code units: the length rules out a huge output unmeasured.
    const wholeFits = info.viewTruncated && config.microCompact.when !== 'always' && raw.length <= maxBytes && utf8ByteLength(raw) <= maxBytes && !looksBinary(raw);
    const message = this.copies.withContent(original, wholeFits ? raw : info.viewText, info.ref);
    const cut = info.viewTruncated && !wholeFits;
    if (!cut && !isTrimmed(message) && !isMicroCompacted(message)) this.wholeViews.add(message);
    return { message, info, cut };
  }

  private lay(mapped: ReadonlyArray<ViewEntry>, shown: ReadonlyMap<ChatMessage, ShownOutput>, newlyCached: number): WorkingView {
    const { config } = this.options;
    const log = new ReductionLog();
    const infos = new Map<ChatMessage, CachedInfo>();
    let entries = mapped.map((entry): ViewEntry => {
      const output = entry.message.role === 'tool' ? shown.get(entry.message) : undefined;
      if (!output) return entry;
      infos.set(output.message, output.info);
      if (output.cut && entry.source !== null) {
        log.add('truncated', { from: entry.source }, {
          reason: 'tool output shown as an in-context view',
          recoverableFrom: 'tool-output-cache',
          refs: [output.info.ref.id],
          tokensBefore: output.info.rawTokens,
        });
      }
      return { ...entry, message: output.message };
    });
    const withContent = (message: ToolMessage, content: string): ToolMessage => this.copies.withContent(message, content);
    if (config.microCompact.when === 'always') {
      const originalLength = (entry: ViewEntry): number => infos.get(entry.message)?.originalLength ?? contentText(entry.message.content as ToolMessage['content']).length;
      entries = microCompact(entries, config.microCompact, originalLength, log, withContent);
    }
    if (config.toolOutputCache.enabled) {
      entries = trimToolOutputs(entries, {
        budgetTokens: this.options.toolOutputBudget,
        tokensOf: (message) => this.toolTokens(message),
        log,
        // The current turn's outputs reach the model as text; a current turn too big for the
        // payload is fitted by the window selection (head + tail cut), never by a placeholder.
        protectFrom: currentTurnStart(entries),
        withContent,
      }).entries;
    }
    return { entries, log, newlyCached, shown };
  }

  /** Tokens of a tool message for the tool output budget: the real tokenizer, or bytes/4 without one. */
  private toolTokens(message: ToolMessage): number {
    const counter = this.options.counter;
    if (counter.meta().strategy === 'heuristic') return Math.ceil(utf8ByteLength(contentText(message.content)) / 4) + 4;
    return counter.countMessage(message);
  }
}
