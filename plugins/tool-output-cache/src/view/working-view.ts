import { type ChatMessage, type ReductionRecord, type ToolMessage } from '@ctxkit/core';
import { contentText, groupEndingAt, type HistoryRange, type LighterForm } from '@ctxkit/core/strategy-kit';

import type { CachedOutputSource } from '../cache/cached-outputs';
import {
  type HistoryLayout,
  layoutEntries,
  NO_COMPACTION_LAYOUT,
  sameLayout,
  type ViewEntry,
} from '../compaction/history-layout';
import { currentTurnStart } from '../compaction/tail-turns';
import { lighterFormAt, type LighterFormOptions, microCompactPlaceholder, toolNameAt } from './lighter-form';
import {
  firstNotBefore,
  keptViewReductionsBefore,
  noViewReductions,
  type ReductionLog,
  reductionsWithin,
  type ViewReductions,
  viewReductionsLog,
} from './reduction-log';
import { type ToolCell, ViewCells, type ViewCellsOptions, type ViewForm } from './view-cells';

export interface WorkingViewOptions extends ViewCellsOptions {
  toolOutputBudget: number;
}

/** What the view decided for the current history, before it is fitted to a payload (-1: none). */
interface ViewDecisions {
  /** Where the current turn starts: its outputs are never replaced. */
  protectFrom: number;
  /** Tool results before this position are micro-compacted (`when: "always"`). */
  microBefore: number;
  /** The newest output the budget replaced: it and every older one that can be are placeholders. */
  cut: number;
  /** True when a tool message of the view does not show its whole output. */
  hides: boolean;
}

/** A working view laid over the caller's history, ready to be fitted and composed. */
export interface PreparedView {
  /** Same indexes as the caller's history: each position holds what would be sent for it. */
  messages: ChatMessage[];
  /** Positions before this are not sent (a compaction's retain + summary, `memory`, stand for them). */
  startIndex: number;
  memory: ChatMessage[];
  /** The position whose (compacted) message the carried user message took, when it took one. */
  displaced?: number;
  /** First position a payload can reach: the older history is the caller's (its outputs neither cached nor counted). */
  region: number;
  protectFrom: number;
  hidesOutput: boolean;
  /** The view's reductions from `region` on. */
  log: ReductionLog;
  /** The records of the view's reductions at the kept positions before `region` (a cut window's kept head). */
  keptBefore(kept: ReadonlyArray<HistoryRange>): ReductionRecord[];
  /** Placeholders of the budget or of micro-compact `always`, but for those the last call showed there too. */
  newPlaceholders: number[];
}

/** What one `prepare` laid out: the next keeps what did not change of it. */
interface LaidOut {
  /** The first and last messages of the history it was laid over. */
  first: ChatMessage | undefined;
  last: ChatMessage | undefined;
  layout: HistoryLayout;
  startIndex: number;
  decisions: ViewDecisions;
  /** Tool positions from `written` on hold what the view shows; `reductions` are theirs. */
  messages: ChatMessage[];
  written: number;
  reductions: ViewReductions;
  /** The valid tool-call units the walk back went through, newest first: unchanged, they keep the walk's bound. */
  walk: ReadonlyArray<WalkedUnit>;
}

interface WalkedUnit {
  start: number;
  end: number;
  /** Its fewest tokens, and those of it and every newer unit of the walk. */
  tokens: number;
  upTo: number;
}

/**
 * The working view of one session's history: what would be sent for each message before it is fitted. Tool outputs are
 * cached once, shown as copies with their view (or whole) and `output_ref`, micro-compacted with `when: "always"`, and
 * trimmed to the tool output budget (never the current turn's). Each call lays it out over what a payload can reach.
 */
export class WorkingView {
  currentLayout: HistoryLayout = NO_COMPACTION_LAYOUT;
  /** Tool call ids of outputs taken back from a trim: never replaced up front, lightened last under pressure. */
  readonly restored = new Set<string>();
  /** The caller's history with the carried user message in its place. */
  private base: ReadonlyArray<ChatMessage> = [];
  private placement = placeLayout(NO_COMPACTION_LAYOUT, 0);
  private turn = 0;
  private decisions: Promise<ViewDecisions> | undefined;
  private laidOut: LaidOut | undefined;
  /** The last call, when the view continues it, and the position before which nothing changed since. */
  private reused: { previous: LaidOut | undefined; stable: number } = { previous: undefined, stable: 0 };
  /** The forms of the last {@link everyLighterForm}, and what they were made for. */
  private relief: { laidOut: LaidOut; showRefs: boolean; from: number; end: number; forms: LighterForm[] } | undefined;

  constructor(
    readonly options: WorkingViewOptions,
    readonly cells = new ViewCells(options),
  ) {}

  /** A preview's fork: decides as the next call will, makes missing cells through `outputs`, changes nothing here. */
  fork(outputs: CachedOutputSource): WorkingView {
    const { currentLayout, restored, base, placement, turn, laidOut, reused, relief } = this;
    const fork = new WorkingView({ ...this.options, outputs }, this.cells.fork(outputs));
    return Object.assign(fork, { currentLayout, restored, base, placement, turn, laidOut, reused, relief });
  }

  /** Restores the outputs of undone trims; keeps nothing of the last call at the next one (nor of the compaction). */
  restore(toolCallIds: Iterable<string>): void {
    for (const id of toolCallIds) this.restored.add(id);
    this.decisions = undefined;
    this.laidOut = undefined;
    this.reused = { previous: undefined, stable: 0 };
    this.relief = undefined;
  }

  /** True when the output at `position` is one the user took back from a trim. */
  keepsWhole(position: number): boolean {
    const message = this.base[position];
    return message !== undefined && this.restores(message);
  }

  private restores(message: Readonly<ChatMessage>): boolean {
    return this.restored.size > 0 && message.role === 'tool' && this.restored.has(message.tool_call_id);
  }

  /** Takes the caller's history, mapped by `layout` onto the compaction (O(1) unless a user message is carried). */
  sync(history: ReadonlyArray<ChatMessage>, layout: HistoryLayout, turn: number): this {
    const { state, form } = this.currentLayout;
    // The cells hold for the same compaction only.
    this.cells.truncate(layout.state === state && layout.form === form ? history.length : 0);
    this.currentLayout = layout;
    this.turn = turn;
    this.placement = placeLayout(layout, history.length);
    const { carriedAt } = this.placement;
    if (carriedAt === undefined) this.base = history;
    else {
      const base = history.slice();
      base[carriedAt] = layout.carried!.message;
      this.base = base;
    }
    this.decisions = undefined;
    return this;
  }

  /**
   * Lays the view over the caller's history: the positions a window of `available` tokens can reach (with `everything`,
   * all) hold what the view shows; the older ones what the last call showed there while it holds, else the caller's.
   */
  async prepare(available: number, everything = false): Promise<PreparedView> {
    const decisions = await (this.decisions ??= this.decide());
    const { base } = this;
    const { startIndex, carriedAt } = this.placement;
    const previous = this.laidOut && this.continues(this.laidOut) ? this.laidOut : undefined;
    // Positions before `stable` show what they showed in the previous call; from `shownFrom` on it laid them out.
    const stable = previous ? this.stableBefore(previous, decisions) : startIndex;
    const shownFrom = previous ? Math.max(previous.written, startIndex) : stable;
    const keeps = shownFrom < stable;
    const reach = everything
      ? { region: startIndex, walk: [] }
      : await this.reach(decisions, available, previous, stable);
    const { region } = reach;
    const messages = base.slice();
    // Before the region: what the last call showed, while it holds.
    const before = keeps ? Math.min(stable, region) : 0;
    for (let position = 0; position < before; position++) messages[position] = previous!.messages[position]!;
    const earlier = keeps ? reductionsWithin(previous!.reductions, shownFrom, before) : noViewReductions();
    const laid = noViewReductions();
    for (let position = region; position < base.length; position++) {
      if (base[position]!.role !== 'tool') continue;
      const made = this.cellAt(position);
      const cell = made instanceof Promise ? await made : made;
      messages[position] = this.budgeted(position, cell, decisions, laid).message;
    }
    this.laidOut = {
      first: base[0],
      last: base[base.length - 1],
      layout: this.currentLayout,
      startIndex,
      decisions,
      messages,
      written: keeps && stable >= region ? Math.min(region, shownFrom) : region,
      reductions: {
        truncated: [...earlier.truncated, ...laid.truncated],
        microCompacted: [...earlier.microCompacted, ...laid.microCompacted],
        trimmed: [...earlier.trimmed, ...laid.trimmed],
      },
      walk: reach.walk,
    };
    this.reused = { previous, stable };
    const { keepRecent } = this.options.config.microCompact;
    // The placeholders the last call showed too are not new (the last payload could carry them).
    const newPlaceholders: number[] = [];
    for (const list of [laid.trimmed, laid.microCompacted])
      for (const { position } of list)
        if (!keeps || position < shownFrom || position >= stable) newPlaceholders.push(position);
    return {
      messages,
      startIndex,
      memory: [...this.currentLayout.memory],
      ...(carriedAt !== undefined ? { displaced: carriedAt } : {}),
      region,
      protectFrom: decisions.protectFrom,
      hidesOutput: decisions.hides,
      log: viewReductionsLog(laid, keepRecent),
      keptBefore: (kept) => keptViewReductionsBefore(earlier, kept, region, keepRecent),
      newPlaceholders,
    };
  }

  /** The lighter form of each older output of the last {@link prepare}'s view from `region` on, reused if unchanged. */
  everyLighterForm(
    messages: ReadonlyArray<ChatMessage>,
    region: number,
    protectFrom: number,
    options: LighterFormOptions,
  ): LighterForm[] {
    const end = Math.min(protectFrom, messages.length);
    const showRefs = options.showRefs !== false;
    const memo = this.relief;
    const { previous, stable } = this.reused;
    const usable = memo !== undefined && memo.laidOut === previous && memo.showRefs === showRefs;
    const reuseFrom = usable ? Math.max(memo.from, region) : end;
    const reuseTo = usable ? Math.min(stable, memo.end, end) : end;
    const forms: LighterForm[] = [];
    // Restored outputs stay whole: the window leaves them out with the older history when they do not fit.
    const scan = (from: number, to: number) => {
      for (let index = from; index < to; index++) {
        if (this.restores(messages[index]!)) continue;
        const form = lighterFormAt(messages, index, options);
        if (form) forms.push(form);
      }
    };
    if (reuseFrom < reuseTo) {
      scan(region, reuseFrom);
      for (const form of memo!.forms) if (form.index >= reuseFrom && form.index < reuseTo) forms.push(form);
      scan(reuseTo, end);
    } else scan(region, end);
    this.relief = { laidOut: this.laidOut!, showRefs, from: region, end, forms };
    return forms;
  }

  /** The whole view, retain + summary first (every output cached): what a compaction summarizes. */
  async entries(): Promise<ViewEntry[]> {
    const decisions = await (this.decisions ??= this.decide());
    const { base } = this;
    const shown: ChatMessage[] = [];
    for (let position = this.currentLayout.keepFrom; position < base.length; position++) {
      const message = base[position]!;
      if (message.role !== 'tool') shown[position] = message;
      else {
        const made = this.cellAt(position);
        shown[position] = this.budgeted(position, made instanceof Promise ? await made : made, decisions).message;
      }
    }
    return layoutEntries(this.currentLayout, base.length, (index) => shown[index]!);
  }

  /** Tokens of the whole view (retain + summary included), counted newest first and no further than `limit`. */
  async tokensUpTo(limit: number): Promise<number> {
    const decisions = await (this.decisions ??= this.decide());
    const counter = this.options.counter;
    let total = 0;
    for (const message of this.currentLayout.memory) total += counter.countMessage(message);
    if (this.currentLayout.carried) total += counter.countMessage(this.currentLayout.carried.message);
    for (let position = this.base.length - 1; position >= this.currentLayout.keepFrom && total < limit; position--) {
      const message = this.base[position]!;
      if (message.role !== 'tool') total += counter.countMessage(message);
      else {
        const made = this.cellAt(position);
        total += this.budgeted(position, made instanceof Promise ? await made : made, decisions).tokens;
      }
    }
    return total;
  }

  private async decide(): Promise<ViewDecisions> {
    const { config, toolOutputBudget } = this.options;
    const { base } = this;
    const from = this.placement.startIndex;
    const protectFrom = currentTurnStart(base, from);
    const held =
      config.minReclaimTokens > 0 && this.laidOut !== undefined && this.continues(this.laidOut)
        ? this.laidOut.decisions
        : undefined;
    const decisions: ViewDecisions = { protectFrom, microBefore: this.microBefore(from), cut: -1, hides: false };
    if (held) decisions.microBefore = await this.heldMicroBefore(decisions, held.microBefore);
    if (!config.toolOutputCache.enabled) return decisions;
    const cut = await toolOutputBudgetCut({
      messages: base,
      from,
      protectFrom,
      budgetTokens: toolOutputBudget,
      output: (position) => {
        const measure = (cell: ToolCell) => {
          const form = this.beforeBudget(position, cell, decisions);
          if (this.cells.hides(form.message)) decisions.hides = true;
          return {
            budgetTokens: form.budgetTokens,
            trimmable: this.cells.trimmable(cell, form) && !this.keepsWhole(position),
          };
        };
        const made = this.cellAt(position);
        return made instanceof Promise ? made.then(measure) : measure(made);
      },
    });
    decisions.cut = held ? await this.heldCut(cut, decisions, held.cut) : cut;
    // The cut is a placeholder; without a cut every output of the view was looked at.
    if (decisions.cut !== -1) decisions.hides = true;
    return decisions;
  }

  /** With `microCompact.when: "always"`: the position before which tool results are micro-compacted. */
  private microBefore(from: number): number {
    const micro = this.options.config.microCompact;
    if (!micro.enabled || micro.when !== 'always') return -1;
    if (micro.keepRecent === 0) return this.base.length;
    let kept = 0;
    for (let position = this.base.length - 1; position >= from; position--) {
      if (this.base[position]!.role === 'tool' && ++kept === micro.keepRecent) return position;
    }
    return -1;
  }

  /** With `minReclaimTokens`: the previous micro-compact boundary while moving it would reclaim fewer tokens. */
  private async heldMicroBefore(decisions: ViewDecisions, previous: number): Promise<number> {
    const { microBefore } = decisions;
    // -1: no result was old enough before, so none was compacted.
    const compactedBefore = previous === -1 ? this.placement.startIndex : previous;
    if (microBefore <= compactedBefore) return microBefore;
    const enough = this.options.config.minReclaimTokens;
    let reclaimed = 0;
    for (let position = compactedBefore; position < microBefore; position++) {
      if (this.base[position]!.role !== 'tool') continue;
      const made = this.cellAt(position);
      const cell = made instanceof Promise ? await made : made;
      reclaimed += cell.shown.tokens - this.beforeBudget(position, cell, decisions).tokens;
      if (reclaimed >= enough) return microBefore;
    }
    return previous;
  }

  /**
   * With `minReclaimTokens`: the previous budget cut while moving it to `cut` would reclaim fewer tokens (the outputs
   * between stay whole, over the budget by about that at most). Looks no further than enough.
   */
  private async heldCut(cut: number, decisions: ViewDecisions, previous: number): Promise<number> {
    if (cut <= previous) return cut;
    const enough = this.options.config.minReclaimTokens;
    let reclaimed = 0;
    for (let position = cut; position > previous && position >= this.placement.startIndex; position--) {
      if (this.base[position]!.role !== 'tool') continue;
      const made = this.cellAt(position);
      const cell = made instanceof Promise ? await made : made;
      const form = this.beforeBudget(position, cell, decisions);
      // Looked at now and shown as it is while the cut is held: it counts for what the view hides.
      if (this.cells.hides(form.message)) decisions.hides = true;
      if (!this.cells.trimmable(cell, form) || this.keepsWhole(position)) continue;
      reclaimed += form.tokens - this.cells.trimmed(cell)!.tokens;
      if (reclaimed >= enough) return cut;
    }
    return previous;
  }

  private cellAt(position: number): ToolCell | Promise<ToolCell> {
    return this.cells.at(position, this.base[position] as ToolMessage, this.turn);
  }

  /** A tool output before the tool output budget: its shown copy, or micro-compacted (`when: "always"`). */
  private beforeBudget(position: number, cell: ToolCell, decisions: ViewDecisions): ViewForm {
    if (
      position >= decisions.microBefore ||
      cell.originalLength <= this.options.config.microCompact.minContentLength ||
      this.keepsWhole(position)
    )
      return cell.shown;
    const name = toolNameAt(this.base, position, this.placement.startIndex);
    const shown = contentText(cell.shown.message.content as ToolMessage['content']);
    if (shown === microCompactPlaceholder(name) || shown === microCompactPlaceholder(name, cell.ref?.id))
      return cell.shown;
    return this.cells.microCompacted(cell, name);
  }

  /** What the view shows for the tool output at `position`; what it did to it recorded in `into`, when given. */
  private budgeted(position: number, cell: ToolCell, decisions: ViewDecisions, into?: ViewReductions): ViewForm {
    const form = this.beforeBudget(position, cell, decisions);
    const trimmed =
      position <= decisions.cut && this.cells.trimmable(cell, form) && !this.keepsWhole(position)
        ? this.cells.trimmed(cell)!
        : undefined;
    if (into) {
      const { ref } = cell;
      // An output the budget replaced is reported as trimmed only: its view is never made.
      if (!trimmed && cell.cut)
        into.truncated.push({
          position,
          recoverableFrom: 'tool-output-cache',
          ref: cell.info!.ref.id,
          tokensBefore: cell.info!.rawTokens,
        });
      if (form !== cell.shown)
        into.microCompacted.push(
          ref
            ? { position, recoverableFrom: 'tool-output-cache', ref: ref.id }
            : { position, recoverableFrom: 'history' },
        );
      // Only the placeholder's tokens are given: the output is not counted whole just for the report.
      if (trimmed)
        into.trimmed.push({
          position,
          recoverableFrom: 'tool-output-cache',
          ref: ref!.id,
          tokensAfter: trimmed.budgetTokens,
        });
    }
    return trimmed ?? form;
  }

  /** True when `laidOut` was laid over the history the view has now, or over the start of it. */
  private continues(laidOut: LaidOut): boolean {
    const { base } = this;
    const { length } = laidOut.messages;
    return (
      sameLayout(laidOut.layout, this.currentLayout) &&
      laidOut.startIndex === this.placement.startIndex &&
      length > 0 &&
      base.length >= length &&
      base[0] === laidOut.first &&
      base[length - 1] === laidOut.last
    );
  }

  /** Up to where the view shows what `previous` showed: before both current turns, a moved cut or micro boundary. */
  private stableBefore(previous: LaidOut, decisions: ViewDecisions): number {
    const before = previous.decisions;
    let stable = Math.min(previous.messages.length, before.protectFrom, decisions.protectFrom);
    if (before.cut !== decisions.cut) stable = Math.min(stable, Math.min(before.cut, decisions.cut) + 1);
    if (before.microBefore !== decisions.microBefore)
      stable = Math.min(stable, Math.max(0, Math.min(before.microBefore, decisions.microBefore)));
    return Math.max(this.placement.startIndex, stable);
  }

  /**
   * The oldest position a window can reach: walking back by valid tool-call units as the composer's window does (past
   * the newest user message), each message at its fewest tokens, to the start of the unit that passes `available`. The
   * last walk's unchanged units still pass it: its oldest stays the bound while the history grown above is small.
   */
  private async reach(
    decisions: ViewDecisions,
    available: number,
    previous: LaidOut | undefined,
    stable: number,
  ): Promise<{ region: number; walk: ReadonlyArray<WalkedUnit> }> {
    const { base } = this;
    const from = this.placement.startIndex;
    // The walk goes back from the newest user message (from the end when there is none).
    let top = base.length - 1;
    while (top >= from && base[top]!.role !== 'user') top--;
    if (top < from) top = base.length;
    const walked = previous?.walk ?? [];
    // The newest unit of the last walk that ends at or before both.
    const kept = firstNotBefore(walked, Math.min(stable, top), endsAfter);
    if (kept < walked.length) {
      const newest = walked[kept]!;
      const oldest = walked[walked.length - 1]!;
      if (oldest.upTo - newest.upTo + newest.tokens > available && top - newest.end <= (newest.end - oldest.start) / 4)
        return { region: oldest.start, walk: kept === 0 ? walked : walked.slice(kept) };
    }
    const units: WalkedUnit[] = [];
    let total = 0;
    let end = top;
    while (end > from) {
      const group = groupEndingAt(base, end);
      if (group.start < from) break;
      if (group.kind !== 'orphan-tool' && group.kind !== 'incomplete-tool-exchange') {
        let tokens = 0;
        for (let position = group.start; position < group.end; position++) {
          const message = base[position]!;
          if (message.role !== 'tool') tokens += this.options.counter.countMessage(message);
          else {
            const made = this.cellAt(position);
            tokens += this.fewestTokens(position, made instanceof Promise ? await made : made, decisions);
          }
        }
        total += tokens;
        units.push({ start: group.start, end: group.end, tokens, upTo: total });
        if (total > available) return { region: group.start, walk: units };
      }
      end = group.start;
    }
    return { region: from, walk: units };
  }

  /** The fewest tokens the tool output at `position` can be sent with, under pressure too. */
  private fewestTokens(position: number, cell: ToolCell, decisions: ViewDecisions): number {
    const form = this.budgeted(position, cell, decisions);
    if (position >= decisions.protectFrom) return form.tokens;
    let fewest = Math.min(form.tokens, this.cells.trimmed(cell)?.tokens ?? Infinity);
    const micro = this.options.config.microCompact;
    if (micro.enabled && contentText(form.message.content as ToolMessage['content']).length > micro.minContentLength)
      fewest = Math.min(fewest, this.cells.microCompacted(cell, toolNameAt(this.base, position)).tokens);
    return fewest;
  }
}

/** One tool output as the budget sees it: its tokens as shown, and whether its (smaller) placeholder may replace it. */
export interface BudgetedOutput {
  budgetTokens: number;
  trimmable: boolean;
}

export interface ToolOutputBudgetInput {
  /** The view laid over the caller's history (only roles are read). */
  messages: ReadonlyArray<ChatMessage>;
  /** First position the view sends. */
  from: number;
  /** Where the current turn starts: its outputs always count and are never replaced. */
  protectFrom: number;
  budgetTokens: number;
  /** The tool output at a position (a promise only when it is made now). */
  output(position: number): BudgetedOutput | Promise<BudgetedOutput>;
}

/**
 * The budget's cut (-1: none), newest first: older outputs are kept while those kept so far fit together beside the
 * current turn's; the newest replaceable one that does not fit is the cut, and it and every older replaceable one
 * become placeholders. Looks only at the outputs it keeps and the cut.
 */
export async function toolOutputBudgetCut(input: ToolOutputBudgetInput): Promise<number> {
  const { messages, from, protectFrom } = input;
  let total = 0;
  for (let position = messages.length - 1; position >= from; position--) {
    if (messages[position]!.role !== 'tool') continue;
    const made = input.output(position);
    const output = made instanceof Promise ? await made : made;
    if (position < protectFrom && output.trimmable && total + output.budgetTokens > input.budgetTokens) return position;
    total += output.budgetTokens;
  }
  return -1;
}

/** The tool output budget: `contextBudgetTokens` when set, else `clamp(contextWindow × 0.25, 20 000, 60 000)`. */
export function toolOutputBudgetTokens(contextBudgetTokens: number | null, contextWindow: number): number {
  if (contextBudgetTokens !== null) return Math.max(0, Math.floor(contextBudgetTokens));
  return Math.min(60_000, Math.max(20_000, Math.floor(contextWindow * 0.25)));
}

/**
 * Where a compaction's layout lies over the caller's history (`length` messages): the kept messages keep their indexes,
 * from `startIndex`; a user message carried after the summary takes the position right before them (`carriedAt`).
 */
export function placeLayout(layout: HistoryLayout, length: number): { startIndex: number; carriedAt?: number } {
  if (layout.memory.length === 0 && layout.carried === undefined) return { startIndex: 0 };
  const startIndex = Math.min(layout.keepFrom, length);
  if (layout.carried === undefined || startIndex === 0) return { startIndex };
  return { startIndex: startIndex - 1, carriedAt: startIndex - 1 };
}

const endsAfter = (unit: WalkedUnit, position: number) => unit.end > position;
