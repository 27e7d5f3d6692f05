import { type ChatMessage, type ITokenCounter, type ToolMessage, type ToolOutputRef } from '@ctxkit/core';
import { contentText, messageOverheadTokens, messageText, utf8ByteLength } from '@ctxkit/core/strategy-kit';

import type { CachedInfo, CachedOutputSource, EnsuredOutput } from '../cache/cached-outputs';
import { sameMessage } from '../compaction/history-layout';
import type { ResolvedToolOutputCacheStrategyConfig } from '../tool-output-cache-strategy-config';
import { isMicroCompacted, isTrimmed, microCompactPlaceholder, trimmedPlaceholder } from './lighter-form';

/**
 * Characters per token no tool output reaches unless it is a run of one repeated character: an output that long is
 * taken as larger than a placeholder of that many tokens without counting it.
 */
export const DENSER_THAN_ANY_TEXT = 16;

export interface ViewCellsOptions {
  config: ResolvedToolOutputCacheStrategyConfig;
  counter: ITokenCounter;
  /** Where a cell's output is cached when it is made (a preview's only describes it). */
  outputs: CachedOutputSource;
}

/**
 * The tool messages of the working view, one cell per position of the caller's history, made when first looked at and
 * kept from call to call: a turn caches, views and counts only the outputs it has not seen. A position that now holds
 * an equal message (a history rebuilt from JSON) adopts the cell; one that holds another is made again.
 */
export class ViewCells {
  private cells: Array<ToolCell | undefined> = [];
  private stored = 0;
  /** Bytes / 4 stands for the tool output budget's count. */
  private readonly heuristic: boolean;

  constructor(
    private readonly options: ViewCellsOptions,
    /** Shared with a fork, so that counts (cached by message object) stay valid. */
    readonly copies = new ViewCopies(),
    /** View messages that show their whole output. */
    private readonly wholeViews = new WeakSet<ChatMessage>(),
  ) {
    this.heuristic = options.counter.meta().strategy === 'heuristic';
  }

  /** A copy that makes the cells it lacks through `outputs`. */
  fork(outputs: CachedOutputSource): ViewCells {
    const fork = new ViewCells({ ...this.options, outputs }, this.copies, this.wholeViews);
    fork.cells = this.cells.slice();
    return fork;
  }

  truncate(length: number): void {
    if (this.cells.length > length) this.cells.length = length;
  }

  /** Outputs stored for the first time since the last call. */
  takeNewlyCached(): number {
    const stored = this.stored;
    this.stored = 0;
    return stored;
  }

  /** The cell of `message` at `position`, made (its output cached) when needed: a promise if the store is asked. */
  at(position: number, message: ToolMessage, turn: number): ToolCell | Promise<ToolCell> {
    const known = this.cells[position];
    if (known?.original === message) return known;
    if (known && sameToolMessage(known.original, message)) {
      known.original = message;
      return known;
    }
    const { config, outputs } = this.options;
    const ensured = config.toolOutputCache.enabled ? outputs.ensure(message, turn) : undefined;
    if (ensured instanceof Promise) return ensured.then((done) => this.place(position, message, done));
    return this.place(position, message, ensured);
  }

  private place(position: number, original: ToolMessage, ensured: EnsuredOutput | undefined): ToolCell {
    if (ensured?.stored) this.stored++;
    const cell = new ToolCell(original, ensured?.info, this);
    // Cells are made newest first: the holes before are filled, so that the array stays dense (one written far past its
    // end, or mostly holes, becomes a hash table, slower at every look-up).
    while (this.cells.length < position) this.cells.push(undefined);
    this.cells[position] = cell;
    return cell;
  }

  /** True when `message` carries a ref but does not show its whole output (a view, a placeholder, a cut). */
  hides(message: ChatMessage): boolean {
    return message.role === 'tool' && message.output_ref !== undefined && !this.wholeViews.has(message);
  }

  /** The cell's copy with `content` and its ref, from the original until its view is made: the same copy either way. */
  private copyOf(cell: ToolCell, content: string): ToolMessage {
    return this.copies.withContent(cell.viewed ? (cell.shown.message as ToolMessage) : cell.base, content, cell.ref);
  }

  /** The `[Previous: used {name}]` copy of the cell (`[Previous: used {name}; ref=…]` when it has a ref). */
  microCompacted(cell: ToolCell, toolName: string): ViewForm {
    const content = microCompactPlaceholder(toolName, cell.ref?.id);
    cell.forms ??= new Map();
    let form = cell.forms.get(content);
    if (!form) cell.forms.set(content, (form = this.countedForm(this.copyOf(cell, content))));
    return form;
  }

  /** The `[tool output trimmed; ref=…]` copy of the cell, or `undefined` when it has no ref. */
  trimmed(cell: ToolCell): ViewForm | undefined {
    if (cell.trimmed === undefined) {
      const { ref } = cell;
      cell.trimmed = ref ? this.countedForm(this.copyOf(cell, trimmedPlaceholder(ref.id))) : null;
    }
    return cell.trimmed ?? undefined;
  }

  /** True when the budget may replace `form` by the cell's placeholder: it has a ref, and that is smaller. */
  trimmable(cell: ToolCell, form: ViewForm): boolean {
    // Told without viewing a long enough output: its view is the output (longer than any text of the placeholder's
    // tokens), or a cut view or binary description, whose note names the ref more often than the placeholder does.
    form.trimmable ??=
      (form === cell.shown &&
        !cell.viewed &&
        cell.ref !== undefined &&
        contentText(cell.base.content).length >= DENSER_THAN_ANY_TEXT * this.trimmed(cell)!.budgetTokens) ||
      ((form.message as ToolMessage).output_ref !== undefined &&
        !isTrimmed(form.message as ToolMessage) &&
        this.exceeds(form, this.trimmed(cell)!.budgetTokens));
    return form.trimmable;
  }

  /** True when `form`'s budget tokens pass `limit`, counted no further than that. */
  private exceeds(form: ViewForm, limit: number): boolean {
    if (this.heuristic) return form.budgetTokens > limit;
    const text = messageText(form.message);
    if (text.length >= DENSER_THAN_ANY_TEXT * limit) return true;
    const room = Math.max(0, limit - messageOverheadTokens(form.message));
    return this.options.counter.countUpTo(text, room) > room;
  }

  /**
   * How a cached output is shown: its view, or its whole output when the view only cut long lines and it fits the
   * per-message size (that cut waits for pressure like every other; with micro-compact `always`, views are used).
   */
  showCached(original: ToolMessage, info: CachedInfo): { message: ChatMessage; cut: boolean } {
    const { config } = this.options;
    const raw = contentText(original.content);
    const { view } = info;
    const maxBytes = config.toolOutputCache.maxMessageBytes;
    // UTF-8 bytes are never fewer than UTF-16 code units: the length rules out a huge output unmeasured.
    const wholeFits =
      view.truncated &&
      config.microCompact.when !== 'always' &&
      raw.length <= maxBytes &&
      utf8ByteLength(raw) <= maxBytes &&
      !view.binary;
    const message = this.copies.shown(original, wholeFits ? raw : view.text, info.ref);
    const cut = view.truncated && !wholeFits;
    if (!cut && !isTrimmed(message) && !isMicroCompacted(message)) this.wholeViews.add(message);
    return { message, cut };
  }

  /** `message`, or the message a function makes when first asked for, counted when first asked. */
  countedForm(message: ChatMessage | (() => ChatMessage)): ViewForm {
    return new ViewForm(message, this.options.counter, this.heuristic);
  }
}

/** What the view knows of one tool message; a cached output's shown message is made when first read. */
export class ToolCell {
  /** The caller's message every copy is made from (the first `original`), so copies stay the same objects. */
  readonly base: ToolMessage;
  /** Characters of the original output (micro-compact's length rule). */
  readonly originalLength: number;
  /** A copy with its view (or its whole output) and its ref; the original when it is not cached. */
  readonly shown: ViewForm;
  /** Micro-compact copies, by content. */
  forms?: Map<string, ViewForm>;
  /** The `[tool output trimmed; ref=…]` copy once made; `null` without a ref. */
  trimmed?: ViewForm | null;
  private made: { message: ChatMessage; cut: boolean } | undefined;

  constructor(
    /** The caller's message at the position (a later equal message is adopted). */
    public original: ToolMessage,
    /** `undefined` while the cache is off or when caching failed. */
    readonly info: CachedInfo | undefined,
    private readonly cells: ViewCells,
  ) {
    this.base = original;
    if (info) {
      this.originalLength = info.originalLength;
      this.shown = cells.countedForm(() => this.view().message);
    } else {
      this.originalLength = contentText(original.content).length;
      this.made = { message: original, cut: false };
      this.shown = cells.countedForm(original);
    }
  }

  /** True when `shown` is an in-context view that cut the output. */
  get cut(): boolean {
    return this.view().cut;
  }

  /** The ref the shown message carries, known without making it. */
  get ref(): ToolOutputRef | undefined {
    return this.info ? this.info.ref : this.base.output_ref;
  }

  get viewed(): boolean {
    return this.made !== undefined;
  }

  private view(): { message: ChatMessage; cut: boolean } {
    this.made ??= this.cells.showCached(this.base, this.info!);
    return this.made;
  }
}

/** One way of showing a position, each count made when first asked for. */
export class ViewForm {
  private counted: number | undefined;
  private budgetCounted: number | undefined;
  /** Whether the tool output budget may replace it by its placeholder, once known. */
  trimmable?: boolean;

  constructor(
    private made: ChatMessage | (() => ChatMessage),
    private readonly counter: ITokenCounter,
    private readonly heuristic: boolean,
  ) {}

  get message(): ChatMessage {
    if (typeof this.made === 'function') this.made = this.made();
    return this.made;
  }

  /** Tokens of `message` as the composer counts it. */
  get tokens(): number {
    this.counted ??= this.counter.countMessage(this.message);
    return this.counted;
  }

  /** Tokens of `message` for the tool output budget: the real tokenizer's, or bytes / 4 without one. */
  get budgetTokens(): number {
    this.budgetCounted ??= this.heuristic
      ? Math.ceil(utf8ByteLength(contentText(this.message.content as ToolMessage['content'])) / 4) + 4
      : this.counter.countMessage(this.message);
    return this.budgetCounted;
  }
}

/**
 * Copies of tool messages with other content (a view, a placeholder) and a ref, one per original, content and ref: the
 * same copy from turn to turn, so that counts cached by message object stay valid. A copy equal to its original is it.
 */
export class ViewCopies {
  /** The first copy made of each message: most get only one (their placeholder), found without the maps below. */
  private readonly firstCopies = new WeakMap<ChatMessage, ToolMessage>();
  /** The other copies, by original, ref id, then content (the string itself is the key: no longer key is built). */
  private readonly copies = new WeakMap<ChatMessage, Map<string, Map<string, ToolMessage>>>();
  /** The copy each original is shown as, found without hashing its content. */
  private readonly shownCopies = new WeakMap<ChatMessage, ToolMessage>();
  /** The original of each shown copy: its copies are made from that, so they are the same either way. */
  private readonly originals = new WeakMap<ChatMessage, ToolMessage>();

  /** `message` shown with `content` and `ref`. */
  shown(message: ToolMessage, content: string, ref: ToolOutputRef): ToolMessage {
    if (message.content === content && message.output_ref?.id === ref.id) return message;
    const known = this.shownCopies.get(message);
    if (known && known.content === content && known.output_ref?.id === ref.id) return known;
    const copy = copyWith(message, content, ref);
    this.shownCopies.set(message, copy);
    this.originals.set(copy, message);
    return copy;
  }

  /** `message` with `content` (and `ref`, else its own `output_ref`). */
  withContent(message: ToolMessage, content: string, ref?: ToolOutputRef): ToolMessage {
    const outputRef = ref ?? message.output_ref;
    if (message.content === content && message.output_ref?.id === outputRef?.id) return message;
    const original = this.originals.get(message);
    if (original) return this.withContent(original, content, outputRef);
    const first = this.firstCopies.get(message);
    if (first === undefined) {
      const copy = copyWith(message, content, outputRef);
      this.firstCopies.set(message, copy);
      return copy;
    }
    if (first.content === content && first.output_ref?.id === outputRef?.id) return first;
    let byRef = this.copies.get(message);
    if (!byRef) this.copies.set(message, (byRef = new Map()));
    const refId = outputRef?.id ?? '';
    let byContent = byRef.get(refId);
    if (!byContent) byRef.set(refId, (byContent = new Map()));
    let copy = byContent.get(content);
    if (!copy) byContent.set(content, (copy = copyWith(message, content, outputRef)));
    return copy;
  }
}

function copyWith(message: ToolMessage, content: string, ref: ToolOutputRef | undefined): ToolMessage {
  return { ...message, content, ...(ref ? { output_ref: { ...ref } } : {}) };
}

/** True when two tool messages say the same thing (a history rebuilt from JSON), the content compared first. */
function sameToolMessage(a: ToolMessage, b: ChatMessage): boolean {
  if (b.role !== 'tool' || a.tool_call_id !== b.tool_call_id) return false;
  if (typeof a.content === 'string' && typeof b.content === 'string') {
    if (a.content !== b.content) return false;
    const { content: _a, ...restA } = a;
    const { content: _b, ...restB } = b;
    return JSON.stringify(restA) === JSON.stringify(restB);
  }
  return sameMessage(a, b);
}
