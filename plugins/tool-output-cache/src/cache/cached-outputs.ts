import { type ChatMessage, CtxkitError, type ITokenCounter, type ToolMessage, type ToolOutputRef } from '@ctxkit/core';
import { contentText, HistoryGrowth, utf8ByteLength } from '@ctxkit/core/strategy-kit';

import type { StrategyEmit } from '../tool-output-cache-strategy';
import { buildInContextView, type InContextView, type InContextViewLimits } from './in-context-view';
import type { CachedToolOutput, ToolOutputCache } from './tool-output-cache';
import { digestToolOutput, isToolOutputRefId } from './tool-output-ref-id';

const REF_IN_TEXT = /to_[0-9a-f]{32}/g;

/** What caching one tool output gave; `stored`: new to the store. */
export interface EnsuredOutput {
  info: CachedInfo | undefined;
  stored: boolean;
}

/** What a working view caches its outputs with: {@link CachedOutputs}, or its `preview` side that stores nothing. */
export interface CachedOutputSource {
  /** What is known of `message`'s output, cached when first seen; a promise only when the store must be asked. */
  ensure(message: ToolMessage, turn: number): EnsuredOutput | Promise<EnsuredOutput>;
}

/**
 * The session's tool outputs as the cache knows them: each caller message object is cached once (a new object with the
 * same output is hashed again, never stored twice); GC after a compaction keeps every ref still named somewhere.
 */
export class CachedOutputs implements CachedOutputSource {
  private readonly cached = new WeakMap<ChatMessage, CachedInfo>();
  private readonly collectedRefs = new Set<string>();
  /** The history {@link cacheFinishedTurn} saw last. */
  private readonly seen = new HistoryGrowth();
  /** What caching would give, without storing, remembering or reporting anything. */
  readonly preview: CachedOutputSource = { ensure: (message) => this.peek(message) };

  constructor(private readonly owner: { cache: ToolOutputCache; counter: ITokenCounter; emit: StrategyEmit }) {}

  /**
   * Caches an output when first seen: its ref now, its view when first read, its write owed until
   * {@link storeOnceAnswered}. A message passed back with a ref the cache has is adopted as it is.
   */
  ensure(message: ToolMessage, turn: number): EnsuredOutput | Promise<EnsuredOutput> {
    const known = this.known(message);
    if (known) return { info: known, stored: false };
    if (!this.carriesRef(message)) return this.cacheOutput(message, turn);
    return this.owner.cache.has(message.output_ref.id).then((has) => {
      if (!has) return this.cacheOutput(message, turn);
      const info = this.carriedInfo(message);
      this.cached.set(message, info);
      return { info, stored: false };
    });
  }

  private known(message: ToolMessage): CachedInfo | undefined {
    const known = this.cached.get(message);
    return known && !this.collectedRefs.has(known.ref.id) ? known : undefined;
  }

  private carriesRef(message: ToolMessage): message is ToolMessage & { output_ref: ToolOutputRef } {
    return (
      !!message.output_ref && isToolOutputRefId(message.output_ref.id) && !this.collectedRefs.has(message.output_ref.id)
    );
  }

  /** A failure to cache is reported: the output is then sent as it is. */
  private cacheOutput(message: ToolMessage, turn: number): EnsuredOutput | Promise<EnsuredOutput> {
    const text = contentText(message.content);
    const failed = (error: unknown): EnsuredOutput => {
      const problem = `A tool output could not be cached (${errorText(error)})`;
      this.warn(turn, `${problem}; it is sent as it is and may be dropped to fit.`, error);
      return { info: undefined, stored: false };
    };
    let result: CachedToolOutput | Promise<CachedToolOutput>;
    try {
      result = this.owner.cache.cacheLater(text);
    } catch (error) {
      return failed(error);
    }
    if (!(result instanceof Promise)) return this.remember(message, text, result, turn);
    return result.then((cached) => this.remember(message, text, cached, turn), failed);
  }

  private remember(message: ToolMessage, text: string, result: CachedToolOutput, turn: number): EnsuredOutput {
    this.collectedRefs.delete(result.ref.id);
    const info = this.infoOf(message, text, result.ref);
    this.cached.set(message, info);
    if (result.stored) {
      const { id: refId, byte_size: byteSize, line_count: lineCount } = result.ref;
      this.owner.emit('tool-output-cached', turn, { refId, toolCallId: message.tool_call_id, byteSize, lineCount });
    }
    return { info, stored: result.stored };
  }

  /**
   * Writes the owed outputs after the current macrotask: the caller has its payload before the store is written to. A
   * failed write is reported and tried again when its ref is read.
   */
  async storeOnceAnswered(turn: number): Promise<void> {
    if (!this.owner.cache.hasPending) return;
    await new Promise<void>((resolve) => setImmediate(resolve));
    for (const { refId, error } of await this.owner.cache.storePending())
      this.warn(
        turn,
        `A tool output could not be written to the store (${errorText(error)}); its ref ${refId} is written ` +
          `again when it is expanded. Check the context store.`,
        error,
      );
  }

  private async peek(message: ToolMessage): Promise<EnsuredOutput> {
    const known = this.known(message);
    if (known) return { info: known, stored: false };
    try {
      if (this.carriesRef(message) && (await this.owner.cache.has(message.output_ref.id)))
        return { info: this.carriedInfo(message), stored: false };
      const text = contentText(message.content);
      return { info: this.infoOf(message, text, digestToolOutput(text)), stored: false };
    } catch {
      return { info: undefined, stored: false };
    }
  }

  private infoOf(message: ToolMessage, text: string, ref: ToolOutputRef): CachedInfo {
    return new CachedInfo(ref, text.length, text, message, this.owner.counter, this.owner.cache.limits);
  }

  /** Shown as it is. */
  private carriedInfo(message: ToolMessage & { output_ref: ToolOutputRef }): CachedInfo {
    const text = contentText(message.content);
    const ref = { ...message.output_ref };
    return new CachedInfo(ref, ref.byte_size ?? text.length, text, message, this.owner.counter);
  }

  /** After a compaction: deletes the cached outputs that neither the compacted history nor the reply names. */
  async collect(
    compacted: ReadonlyArray<ChatMessage>,
    reply: { retain: string; summary: string },
    turn: number,
  ): Promise<void> {
    const keep = new Set([reply.retain, reply.summary].flatMap((text) => text.match(REF_IN_TEXT) ?? []));
    for (const message of compacted) {
      for (const id of contentText(message.content as ToolMessage['content']).match(REF_IN_TEXT) ?? []) keep.add(id);
      if (message.role === 'tool')
        for (const id of [this.cached.get(message)?.ref.id, message.output_ref?.id]) if (id) keep.add(id);
    }
    try {
      const collected = await this.owner.cache.collect(keep);
      for (const id of collected) this.collectedRefs.add(id);
      if (collected.length > 0) this.owner.emit('tool-output-gc', turn, { refIds: collected });
    } catch (error) {
      this.warn(turn, `Tool output GC failed: ${errorText(error)}`);
    }
  }

  private warn(turn: number, message: string, error?: unknown): void {
    this.owner.emit('strategy-warning', turn, {
      message,
      ...(CtxkitError.isInstance(error) ? { code: error.code } : {}),
    });
  }

  /**
   * Caches the outputs of a finished turn for the next payload: those appended since the history seen last, or after
   * the newest user message of a new history. Older ones are cached when a payload reaches them.
   */
  async cacheFinishedTurn(newHistory: ReadonlyArray<ChatMessage>, turn: number): Promise<void> {
    let from = this.seen.observe(newHistory);
    if (from === 0)
      for (let index = newHistory.length - 1; index > 0 && from === 0; index--)
        if (newHistory[index]!.role === 'user') from = index;
    for (let index = from; index < newHistory.length; index++) {
      const message = newHistory[index]!;
      if (message.role !== 'tool') continue;
      const ensured = this.ensure(message, turn);
      if (ensured instanceof Promise) await ensured;
    }
  }
}

export function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/**
 * What is known of one cached output: its view built and its tokens counted when first read (a class: made for every
 * output a payload reaches, most shown only as a placeholder).
 */
export class CachedInfo {
  private built: InContextView | undefined;
  private tokens: number | undefined;

  constructor(
    readonly ref: ToolOutputRef,
    /** Characters of the original content (micro-compact's length rule). */
    readonly originalLength: number,
    private readonly text: string,
    private readonly message: ToolMessage,
    private readonly counter: ITokenCounter,
    /** What its view is built with; `undefined` for an output shown as it is. */
    private readonly limits?: InContextViewLimits,
  ) {}

  /** Its in-context view (whether it cut the output, whether binary), built when first read. */
  get view(): InContextView {
    this.built ??= this.limits
      ? buildInContextView(this.text, this.ref, this.limits)
      : { text: this.text, truncated: false, binary: false };
    return this.built;
  }

  /** Tokens of the original output: counted when small, estimated at bytes / 4 when its view had to cut it. */
  get rawTokens(): number {
    this.tokens ??= this.view.truncated
      ? Math.ceil((this.ref.byte_size ?? utf8ByteLength(this.text)) / 4) + 4
      : this.counter.countMessage(this.message);
    return this.tokens;
  }
}
