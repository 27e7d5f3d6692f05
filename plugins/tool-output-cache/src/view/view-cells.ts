import { type ChatMessage, type ITokenCounter, type ToolMessage, type ToolOutputRef } from '@ctxkit/core';
import { contentText, messageOverheadTokens, messageText, utf8ByteLength } from '@ctxkit/core/strategy-kit';

import type { CachedInfo, CachedOutputSource, EnsuredOutput } from '../cache/cached-outputs';
import { isTrimmed, trimmedPlaceholder } from '../cache/trimmed-placeholder';
import { sameMessage } from '../compaction/compaction-state';
import type { ResolvedToolOutputCacheStrategyConfig } from '../tool-output-cache-strategy-config';
import { isMicroCompacted, microCompactPlaceholder } from './micro-compact';
import { ViewCopies } from './view-copies';

/**
 * Characters per token no tool output reaches unless it is a run of one repeated character: an output
 * that long is taken as larger than a placeholder of that many tokens without counting it.
 */
export const DENSER_THAN_ANY_TEXT = 16;

/** One way of showing a position, with its counts (each counted once, when first asked for). */
export interface ViewForm {
  readonly message: ChatMessage;
  /** Tokens of `message` as the composer counts it. */
  readonly tokens: number;
  /** Tokens of `message` for the tool output budget (bytes / 4 with a heuristic counter). */
  readonly budgetTokens: number;
  /** Whether the tool output budget may replace it by its placeholder, once known. */
  trimmable?: boolean;
}

/** What the working view knows of one tool message of the caller. */
export interface ToolCell {
  /** The caller's message the cell was made from (a later equal message is adopted). */
  original: ToolMessage;
  /**
   * How it is shown: a copy with its view (or its whole output) and its ref; the original when it is
   * not cached. Its message is made when first read: an output the payload shows only as its
   * placeholder is never viewed.
   */
  readonly shown: ViewForm;
  /** What the cache knows of it; `undefined` while the cache is off or when caching failed. */
  readonly info: CachedInfo | undefined;
  /** True when `shown` is an in-context view that cut the output. */
  readonly cut: boolean;
  /** Characters of the original output (micro-compact's length rule). */
  readonly originalLength: number;
  /** The ref the message of `shown` carries, known without making it. */
  readonly ref: ToolOutputRef | undefined;
  /**
   * The caller's message every copy of the cell is made from (its first `original`): copies stay the
   * same objects when an equal message is adopted.
   */
  readonly base: ToolMessage;
  /** True once the message of `shown` is made. */
  readonly viewed: boolean;
  /**
   * Copies made other than its placeholder, by content (the same copy whenever the same content is asked for); made
   * with the first.
   */
  forms?: Map<string, ViewForm>;
  /** The `[tool output trimmed; ref=…]` copy once made; `null` without a ref. */
  trimmed?: ViewForm | null;
}

/** What {@link ViewCells} needs. */
export interface ViewCellsOptions {
  config: ResolvedToolOutputCacheStrategyConfig;
  counter: ITokenCounter;
  /** Where a tool output is cached when a cell is first made (for a preview: described, not stored). */
  outputs: CachedOutputSource;
}

/**
 * The tool messages of the working view, one cell per position of the caller's history, made the
 * first time a position is looked at and kept from call to call: a turn caches, views and counts only
 * the outputs it has not seen. A cell belongs to the message it was made from; a position that now
 * holds another object with the same content (a history rebuilt from JSON) adopts it, one that holds
 * something else is made again. Copies are memoized, so the counter's counts (by message object) stay
 * valid from turn to turn.
 */
export class ViewCells {
  private cells: Array<ToolCell | undefined> = [];
  private stored = 0;
  /** The counter is the heuristic one (bytes / 4 stands for the tool output budget's count). */
  private readonly heuristic: boolean;

  constructor(
    private readonly options: ViewCellsOptions,
    private readonly copies = new ViewCopies(),
    /** View messages that show their whole output (the others hide part of it behind their ref). */
    private readonly wholeViews = new WeakSet<ChatMessage>(),
  ) {
    this.heuristic = options.counter.meta().strategy === 'heuristic';
  }

  /**
   * A copy that starts with these cells and makes the cells it lacks through `outputs` (a preview's,
   * which stores nothing): what it makes stays its own. The copies of messages are shared, so both
   * show the same message objects.
   */
  fork(outputs: CachedOutputSource): ViewCells {
    const fork = new ViewCells({ ...this.options, outputs }, this.copies, this.wholeViews);
    fork.cells = this.cells.slice();
    return fork;
  }

  /** Forgets every cell (the positions now mean other messages). */
  clear(): void {
    this.cells = [];
  }

  /** Forgets the cells from `length` on (the history is shorter now). */
  truncate(length: number): void {
    if (this.cells.length > length) this.cells.length = length;
  }

  /** Outputs stored for the first time since the last call. */
  takeNewlyCached(): number {
    const stored = this.stored;
    this.stored = 0;
    return stored;
  }

  /** The cell of `message` at `position` when it was made already (adopting an equal message), else `undefined`. */
  known(position: number, message: ToolMessage): ToolCell | undefined {
    const cell = this.cells[position];
    if (!cell) return undefined;
    if (cell.original === message) return cell;
    if (!sameToolMessage(cell.original, message)) return undefined;
    cell.original = message;
    return cell;
  }

  /**
   * The cell of `message` at `position`, made (the output cached once, its view built) when needed:
   * at once, unless the cache must ask the store first.
   */
  at(position: number, message: ToolMessage, turn: number): ToolCell | Promise<ToolCell> {
    const known = this.known(position, message);
    if (known) return known;
    const { config, outputs } = this.options;
    if (!config.toolOutputCache.enabled) return this.place(position, this.make(message, undefined));
    const ensured = outputs.ensure(message, turn);
    if (ensured instanceof Promise) return ensured.then((done) => this.place(position, this.make(message, done)));
    return this.place(position, this.make(message, ensured));
  }

  private place(position: number, cell: ToolCell): ToolCell {
    // Cells are made newest first: the positions before are filled in first, so that the array stays
    // dense (one written far past its end, or mostly holes, becomes a hash table, slower at every look-up).
    while (this.cells.length < position) this.cells.push(undefined);
    this.cells[position] = cell;
    return cell;
  }

  /** `message` with other content (same ref), the same copy from call to call. */
  withContent(message: ToolMessage, content: string): ToolMessage {
    return this.copies.withContent(message, content);
  }

  /** True when `message` carries a ref but does not show its whole output (a view, a placeholder, a cut). */
  hides(message: ChatMessage): boolean {
    return message.role === 'tool' && message.output_ref !== undefined && !this.wholeViews.has(message);
  }

  /** A copy of the cell's shown message with `content`, counted once. */
  form(cell: ToolCell, content: string): ViewForm {
    cell.forms ??= new Map();
    let form = cell.forms.get(content);
    if (!form) {
      form = this.countedForm(this.copyOf(cell, content));
      cell.forms.set(content, form);
    }
    return form;
  }

  /**
   * The cell's message with `content` and the cell's ref: the copy its shown message gives for that content, made
   * without the shown message when it is not made yet.
   */
  private copyOf(cell: ToolCell, content: string): ToolMessage {
    return this.copies.withContent(cell.viewed ? (cell.shown.message as ToolMessage) : cell.base, content, cell.ref);
  }

  /** The `[Previous: used {name}]` copy of the cell (`[Previous: used {name}; ref=…]` when it has a ref). */
  microCompacted(cell: ToolCell, toolName: string): ViewForm {
    return this.form(cell, microCompactPlaceholder(toolName, cell.ref?.id));
  }

  /** The `[tool output trimmed; ref=…]` copy of the cell, or `undefined` when it has no ref. */
  trimmed(cell: ToolCell): ViewForm | undefined {
    if (cell.trimmed === undefined) {
      const { ref } = cell;
      // Kept on the cell only (never asked for by content): most cells need no other copy.
      cell.trimmed = ref ? this.countedForm(this.copyOf(cell, trimmedPlaceholder(ref.id))) : null;
    }
    return cell.trimmed ?? undefined;
  }

  /**
   * True when the tool output budget may replace `form` by the cell's placeholder: it carries a ref,
   * is not the placeholder already, and the placeholder is smaller.
   */
  trimmable(cell: ToolCell, form: ViewForm): boolean {
    if (form.trimmable === undefined) {
      if (
        form === cell.shown &&
        !cell.viewed &&
        cell.ref &&
        contentText(cell.base.content).length >= DENSER_THAN_ANY_TEXT * this.trimmed(cell)!.budgetTokens
      ) {
        // Told without viewing the output: its view is the output itself (longer than any text of the
        // placeholder's tokens), or a cut view or a binary description, whose note names the ref more
        // than once and so is larger than the placeholder that names it once.
        form.trimmable = true;
      } else {
        const message = form.message as ToolMessage;
        form.trimmable =
          message.output_ref !== undefined &&
          !isTrimmed(message) &&
          this.exceeds(form, this.trimmed(cell)!.budgetTokens);
      }
    }
    return form.trimmable;
  }

  /**
   * True when `form` takes more than `limit` tokens for the tool output budget. An output is not
   * counted whole just to learn that its placeholder is smaller: one of at least
   * {@link DENSER_THAN_ANY_TEXT} characters per token of the limit is larger (only a run of one
   * repeated character packs that densely), a shorter one is counted no further than the limit.
   */
  private exceeds(form: ViewForm, limit: number): boolean {
    const counter = this.options.counter;
    if (this.heuristic) return form.budgetTokens > limit;
    const text = messageText(form.message);
    if (text.length >= DENSER_THAN_ANY_TEXT * limit) return true;
    const room = Math.max(0, limit - messageOverheadTokens(form.message));
    return counter.countUpTo(text, room) > room;
  }

  /** The cell of `original`, from what caching it gave (`undefined` while the cache is off). */
  private make(original: ToolMessage, ensured: EnsuredOutput | undefined): ToolCell {
    const info = ensured?.info;
    if (ensured?.stored) this.stored++;
    return new ViewCell(original, info, this);
  }

  /**
   * How a cached output is shown: its view, or its whole output when the view only cut long lines and it fits the
   * per-message size.
   */
  showCached(original: ToolMessage, info: CachedInfo): ShownMessage {
    const { config } = this.options;
    const raw = contentText(original.content);
    // One within the per-message size whose view only cut long lines is shown whole: like every other
    // reduction, the view's cut waits for budget pressure. With `microCompact.when: "always"` views are always used.
    const maxBytes = config.toolOutputCache.maxMessageBytes;
    // UTF-8 bytes are never fewer than UTF-16 code units: the length rules out a huge output unmeasured.
    const wholeFits =
      info.viewTruncated &&
      config.microCompact.when !== 'always' &&
      raw.length <= maxBytes &&
      utf8ByteLength(raw) <= maxBytes &&
      !info.binary;
    const message = this.copies.shown(original, wholeFits ? raw : info.viewText, info.ref);
    const cut = info.viewTruncated && !wholeFits;
    if (!cut && !isTrimmed(message) && !isMicroCompacted(message)) this.wholeViews.add(message);
    return { message, cut };
  }

  /** `message`, or the message a function makes when first asked for, counted when first asked. */
  countedForm(message: ChatMessage | (() => ChatMessage)): ViewForm {
    return new CountedForm(message, this.options.counter, this.heuristic);
  }
}

/** A cell's shown message, and whether it is an in-context view that cut the output. */
interface ShownMessage {
  message: ChatMessage;
  cut: boolean;
}

/**
 * A {@link ToolCell}: a cached output's shown message is made when first read (a class: one is made
 * for every output a payload reaches, most of which it shows only as a placeholder).
 */
class ViewCell implements ToolCell {
  readonly base: ToolMessage;
  readonly originalLength: number;
  readonly shown: ViewForm;
  forms?: Map<string, ViewForm>;
  trimmed?: ViewForm | null;
  private made: ShownMessage | undefined;

  constructor(
    public original: ToolMessage,
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

  get cut(): boolean {
    return this.view().cut;
  }

  get ref(): ToolOutputRef | undefined {
    return this.info ? this.info.ref : this.base.output_ref;
  }

  get viewed(): boolean {
    return this.made !== undefined;
  }

  private view(): ShownMessage {
    this.made ??= this.cells.showCached(this.base, this.info!);
    return this.made;
  }
}

/**
 * A {@link ViewForm} counted when first asked (a class: made for every output a payload reaches, and its placeholder).
 */
class CountedForm implements ViewForm {
  private counted: number | undefined;
  private budgetCounted: number | undefined;
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

  get tokens(): number {
    this.counted ??= this.counter.countMessage(this.message);
    return this.counted;
  }

  get budgetTokens(): number {
    // The real tokenizer, or bytes / 4 without one.
    this.budgetCounted ??= this.heuristic
      ? Math.ceil(utf8ByteLength(contentText(this.message.content as ToolMessage['content'])) / 4) + 4
      : this.counter.countMessage(this.message);
    return this.budgetCounted;
  }
}

/**
 * True when two tool messages say the same thing (a history rebuilt from JSON): the content compared as strings first.
 */
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
