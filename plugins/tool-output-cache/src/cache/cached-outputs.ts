import {
  type ChatMessage,
  CtxkitError,
  type CtxkitEventBase,
  type CtxkitEventBus,
  type ITokenCounter,
  safeEmit,
  type ToolMessage,
  type ToolOutputRef,
} from '@ctxkit/core';
import { contentText, utf8ByteLength } from '@ctxkit/core/strategy-kit';

import type { InContextView } from './in-context-view';
import type { CachedToolOutput, ToolOutputCache } from './tool-output-cache';
import { isToolOutputRefId } from './tool-output-ref-id';

const REF_IN_TEXT = /to_[0-9a-f]{32}/g;

/** What is known of one cached tool output. */
export interface CachedInfo {
  readonly ref: ToolOutputRef;
  /** The in-context view (built when first read, with `viewTruncated` and `binary`). */
  readonly viewText: string;
  readonly viewTruncated: boolean;
  /** True when the output looks binary (its view only describes it). */
  readonly binary: boolean;
  /** Characters of the original content (micro-compact's length rule). */
  readonly originalLength: number;
  /** Tokens of the original output (exact when small, bytes/4 when it had to be cut), counted when first read. */
  readonly rawTokens: number;
}

/**
 * The parts of an in-context view a {@link CachedInfo} reads: a {@link CachedToolOutput}'s view, built when first read.
 */
interface ViewSource {
  readonly view: Pick<InContextView, 'text' | 'truncated' | 'binary'>;
}

/** What caching one tool output gave: what is known of it, and whether it is new to the store. */
export interface EnsuredOutput {
  info: CachedInfo | undefined;
  stored: boolean;
}

/**
 * What a working view caches its tool outputs with: {@link CachedOutputs}, or its `preview` side that stores nothing.
 */
export interface CachedOutputSource {
  /**
   * What is known of `message`'s output, cached when first seen; `stored` when it was written now.
   * Answers at once (no promise) unless the store must be asked first.
   */
  ensure(message: ToolMessage, turn: number): EnsuredOutput | Promise<EnsuredOutput>;
}

/** Where {@link CachedOutputs} stores, counts and reports. */
export interface CachedOutputsOwner {
  cache: ToolOutputCache;
  counter: ITokenCounter;
  events: CtxkitEventBus;
  eventBase(turn: number): CtxkitEventBase;
}

/**
 * The session's tool outputs as the cache knows them: each caller message is cached once (by
 * message object; a new object with the same output is hashed again but never stored twice), and
 * garbage collection after a compaction keeps every ref that is still named somewhere.
 */
export class CachedOutputs implements CachedOutputSource {
  private readonly cached = new WeakMap<ChatMessage, CachedInfo>();
  private readonly collectedRefs = new Set<string>();
  /**
   * The outputs as a preview sees them: what is cached already, and for the rest what caching would give, without
   * storing or reporting.
   */
  readonly preview: CachedOutputSource = { ensure: (message) => this.peek(message) };

  constructor(private readonly owner: CachedOutputsOwner) {}

  /**
   * Caches a tool output when it is first seen (its ref now, its view when first read, its write owed until
   * {@link storePending}); repeated calls reuse what is known. `stored`: new to the store. A promise
   * only when the store is asked (a message that carries a ref, the session's first output).
   */
  ensure(message: ToolMessage, turn: number): EnsuredOutput | Promise<EnsuredOutput> {
    const known = this.cached.get(message);
    if (known && !this.collectedRefs.has(known.ref.id)) return { info: known, stored: false };
    if (
      message.output_ref &&
      isToolOutputRefId(message.output_ref.id) &&
      !this.collectedRefs.has(message.output_ref.id)
    )
      return this.ensureCarried(message, turn);
    return this.cacheOutput(message, turn);
  }

  /**
   * {@link ensure} of a message that carries a well-formed ref: adopted when the cache has it, else cached as any
   * output.
   */
  private async ensureCarried(message: ToolMessage, turn: number): Promise<EnsuredOutput> {
    if (await this.owner.cache.has(message.output_ref!.id)) {
      // The caller passes back a message that already carries a ref (our copy, or its own cache).
      const info = this.carriedInfo(message);
      this.cached.set(message, info);
      return { info, stored: false };
    }
    return this.cacheOutput(message, turn);
  }

  /**
   * The output given its ref now (its view when first read), its write owed (a failure is reported: the output is then
   * sent as it is).
   */
  private cacheOutput(message: ToolMessage, turn: number): EnsuredOutput | Promise<EnsuredOutput> {
    const text = contentText(message.content);
    let result: CachedToolOutput | Promise<CachedToolOutput>;
    try {
      result = this.owner.cache.cacheLater(text);
    } catch (error) {
      return this.failed(error, turn);
    }
    if (result instanceof Promise) {
      return result.then(
        (cached) => this.remember(message, text, cached, turn),
        (error: unknown) => this.failed(error, turn),
      );
    }
    return this.remember(message, text, result, turn);
  }

  /** What caching `message` gave, kept for the next calls (and reported when the output is new to the store). */
  private remember(message: ToolMessage, text: string, result: CachedToolOutput, turn: number): EnsuredOutput {
    this.collectedRefs.delete(result.ref.id);
    const info = new CachedOutputInfo(result.ref, text.length, result, message, this.owner.counter);
    this.cached.set(message, info);
    if (result.stored) {
      // Assigned, not spread: a first call reports thousands of outputs, and a spread object literal costs microseconds
      // each.
      const cached = {
        refId: result.ref.id,
        toolCallId: message.tool_call_id,
        byteSize: result.ref.byte_size ?? 0,
        lineCount: result.ref.line_count ?? 0,
      };
      safeEmit(this.owner.events, 'tool-output-cached', Object.assign({}, this.owner.eventBase(turn), cached));
    }
    return { info, stored: result.stored };
  }

  /** A tool output that could not be cached, reported: it is sent as it is. */
  private failed(error: unknown, turn: number): EnsuredOutput {
    safeEmit(this.owner.events, 'strategy-warning', {
      ...this.owner.eventBase(turn),
      message:
        `A tool output could not be cached (${error instanceof Error ? error.message : String(error)}); it ` +
        `is sent as it is and may be dropped to fit.`,
      ...(CtxkitError.isInstance(error) ? { code: error.code } : {}),
    });
    return { info: undefined, stored: false };
  }

  /**
   * Writes the outputs cached since the last write (after the payload that named them was returned);
   * a write that fails is reported and tried again when its ref is read.
   */
  async storePending(turn: number): Promise<void> {
    for (const failure of await this.owner.cache.storePending()) {
      const { error } = failure;
      safeEmit(this.owner.events, 'strategy-warning', {
        ...this.owner.eventBase(turn),
        message:
          `A tool output could not be written to the store ` +
          `(${error instanceof Error ? error.message : String(error)}); its ref ${failure.refId} is written ` +
          `again when it is expanded. Check the context store.`,
        ...(CtxkitError.isInstance(error) ? { code: error.code } : {}),
      });
    }
  }

  /**
   * {@link storePending} once the last call's answer is delivered (the caller has its payload before
   * the store is written to): after the current macrotask, and only when writes are owed.
   */
  async storeOnceAnswered(turn: number): Promise<void> {
    if (!this.owner.cache.hasPending) return;
    await new Promise<void>((resolve) => setImmediate(resolve));
    await this.storePending(turn);
  }

  /**
   * What {@link ensure} would know of `message`, without storing, remembering or reporting anything:
   * the ref is the output's content address and the view is built the same way. Store reads only.
   */
  private async peek(message: ToolMessage): Promise<{ info: CachedInfo | undefined; stored: false }> {
    const known = this.cached.get(message);
    if (known && !this.collectedRefs.has(known.ref.id)) return { info: known, stored: false };
    try {
      if (
        message.output_ref &&
        isToolOutputRefId(message.output_ref.id) &&
        !this.collectedRefs.has(message.output_ref.id) &&
        (await this.owner.cache.has(message.output_ref.id))
      ) {
        return { info: this.carriedInfo(message), stored: false };
      }
      const text = contentText(message.content);
      const described = this.owner.cache.describe(text);
      return {
        info: new CachedOutputInfo(described.ref, text.length, described, message, this.owner.counter),
        stored: false,
      };
    } catch {
      // What caching would do then (it reports the failure; a preview does not).
      return { info: undefined, stored: false };
    }
  }

  /** The info of a message that carries the ref of an output the cache has: shown as it is. */
  private carriedInfo(message: ToolMessage): CachedInfo {
    const text = contentText(message.content);
    const view = { text, truncated: false, binary: false };
    return new CachedOutputInfo(
      { ...message.output_ref! },
      message.output_ref!.byte_size ?? text.length,
      { view },
      message,
      this.owner.counter,
    );
  }

  /**
   * After a compaction: deletes cached outputs that neither the compacted history nor the retain/summary text
   * references.
   */
  async collect(
    compacted: ReadonlyArray<ChatMessage>,
    reply: { retain: string; summary: string },
    turn: number,
  ): Promise<void> {
    const keep = new Set<string>();
    for (const text of [reply.retain, reply.summary])
      for (const match of text.match(REF_IN_TEXT) ?? []) keep.add(match);
    for (const message of compacted) {
      if (message.role === 'tool') {
        const known = this.cached.get(message);
        if (known) keep.add(known.ref.id);
        if (message.output_ref) keep.add(message.output_ref.id);
      }
      for (const match of contentText(message.content as ToolMessage['content']).match(REF_IN_TEXT) ?? [])
        keep.add(match);
    }
    try {
      const collected = await this.owner.cache.collect(keep);
      for (const id of collected) this.collectedRefs.add(id);
      if (collected.length > 0)
        safeEmit(this.owner.events, 'tool-output-gc', { ...this.owner.eventBase(turn), refIds: collected });
    } catch (error) {
      safeEmit(this.owner.events, 'strategy-warning', {
        ...this.owner.eventBase(turn),
        message: `Tool output GC failed: ${error instanceof Error ? error.message : String(error)}`,
      });
    }
  }
}

/**
 * {@link CachedInfo} with its view built and `rawTokens` counted when first read (a class: made for
 * every output a payload reaches, most of which it shows only as a placeholder; a long history's
 * outputs are never all counted).
 */
class CachedOutputInfo implements CachedInfo {
  private tokens: number | undefined;

  constructor(
    readonly ref: ToolOutputRef,
    readonly originalLength: number,
    private readonly source: ViewSource,
    private readonly message: ToolMessage,
    private readonly counter: ITokenCounter,
  ) {}

  get viewText(): string {
    return this.source.view.text;
  }

  get viewTruncated(): boolean {
    return this.source.view.truncated;
  }

  get binary(): boolean {
    return this.source.view.binary;
  }

  get rawTokens(): number {
    // An output its view had to cut is estimated at bytes / 4, not counted whole.
    this.tokens ??= this.viewTruncated
      ? Math.ceil((this.ref.byte_size ?? utf8ByteLength(contentText(this.message.content))) / 4) + 4
      : this.counter.countMessage(this.message);
    return this.tokens;
  }
}
