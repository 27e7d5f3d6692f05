import { type ChatMessage, type ReductionRecord, type ToolMessage } from '@ctxkit/core';
import { contentText, groupEndingAt, type HistoryRange, type LighterForm } from '@ctxkit/core/strategy-kit';

import type { CachedOutputSource } from '../cache/cached-outputs';
import { type HistoryLayout, layoutEntries, NO_COMPACTION_LAYOUT, sameLayout } from '../compaction/history-layout';
import { type AlignedView, placeLayout } from './align-view';
import { currentTurnStart } from './current-turn';
import { lighterFormAt, type LighterFormOptions } from './lighter-form';
import { microCompactPlaceholder } from './micro-compact';
import { type ReachWalk, reachWalk, unitsEndingBy, type WalkedUnit, walkPrefix } from './reach-walk';
import type { ReductionLog } from './reduction-log';
import type { RestoredOutputs } from './restored-outputs';
import { toolNameAt } from './tool-call-names';
import { toolOutputBudgetCut } from './tool-output-budget';
import { type ToolCell, ViewCells, type ViewCellsOptions, type ViewForm } from './view-cells';
import type { ViewEntry } from './view-entry';
import {
  keptViewReductionsBefore,
  noViewReductions,
  reductionsWithin,
  type ViewReductions,
  viewReductionsLog,
} from './view-reductions';

export interface WorkingViewOptions extends ViewCellsOptions {
  toolOutputBudget: number;
  restored: RestoredOutputs;
}

/** What the view decided for the current history, before it is fitted to a payload (-1: none). */
interface ViewDecisions {
  /** Where the current turn starts: its outputs are never replaced. */
  protectFrom: number;
  /** Tool results before this position are micro-compacted (`when: "always"`). */
  microBefore: number;
  /** The newest output the tool output budget replaced: it and every older one that can be are placeholders. */
  cut: number;
  /** True when a tool message of the view does not show its whole output. */
  hides: boolean;
}

/** A working view laid over the caller's history, ready to be fitted and composed. */
export interface PreparedView {
  aligned: AlignedView;
  /**
   * First position the payload can reach: the older history does not fit even with every output replaced, so it is left
   * as the caller's (its outputs neither cached nor counted).
   */
  region: number;
  protectFrom: number;
  hidesOutput: boolean;
  /** The view's reductions from `region` on, listed for the history the payload keeps. */
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
  /** The view over the caller's history: tool positions from `written` on hold what the view shows. */
  messages: ChatMessage[];
  written: number;
  /** The reductions at the tool positions from `written` on, in position order. */
  reductions: ViewReductions;
  walk: ReachWalk;
}

/**
 * The working view of one session's history: what would be sent for each message before it is fitted to the budget.
 * Tool outputs are cached once and shown as copies with their view (or their whole output) and `output_ref`,
 * micro-compacted with `microCompact.when: "always"`, and trimmed to the tool output budget (never the current turn's).
 * Each call lays it out afresh over what a payload can reach (see {@link prepare}); a compaction builds all of it.
 */
export class WorkingView {
  currentLayout: HistoryLayout = NO_COMPACTION_LAYOUT;
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
    /** One per tool message, with the copies (`withContent`) and what hides an output (`hides`). */
    readonly cells = new ViewCells(options),
  ) {}

  /** A preview's fork: decides as the next call will, makes missing cells through `outputs`, changes nothing here. */
  fork(outputs: CachedOutputSource): WorkingView {
    const { currentLayout, base, placement, turn, laidOut, reused, relief } = this;
    const fork = new WorkingView({ ...this.options, outputs }, this.cells.fork(outputs));
    return Object.assign(fork, { currentLayout, base, placement, turn, laidOut, reused, relief });
  }

  /** Keeps nothing of the last call at the next one (the restored outputs or the compaction changed). */
  forgetLastCall(): void {
    this.decisions = undefined;
    this.laidOut = undefined;
    this.reused = { previous: undefined, stable: 0 };
    this.relief = undefined;
  }

  /** True when the output at `position` is one the user took back from a trim. */
  keepsWhole(position: number): boolean {
    const message = this.base[position];
    return message !== undefined && this.options.restored.has(message);
  }

  /** Takes the caller's history, mapped by `layout` onto the compaction (O(1) unless a user message is carried). */
  sync(history: ReadonlyArray<ChatMessage>, layout: HistoryLayout, turn: number): this {
    const { state, form } = this.currentLayout;
    // The cells hold for the same compaction only.
    this.cells.truncate(layout.state === state && layout.form === form ? history.length : 0);
    this.currentLayout = layout;
    this.turn = turn;
    this.placement = placeLayout(layout, history.length);
    const carriedAt = this.placement.carriedAt;
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
   * Lays the view over the caller's history afresh: the positions a window of `available` tokens can reach (with
   * `everything`, all) hold what the view shows; the older ones what the last call showed there while it holds (see
   * {@link stableBefore}), else the caller's message.
   */
  async prepare(available: number, everything = false): Promise<PreparedView> {
    const decisions = await (this.decisions ??= this.decide());
    const { base } = this;
    const { startIndex } = this.placement;
    const previous = this.laidOut && this.continues(this.laidOut) ? this.laidOut : undefined;
    // Positions before `stable` show what they showed in the previous call; from `shownFrom` on it laid them out.
    const stable = previous ? this.stableBefore(previous, decisions) : startIndex;
    const shownFrom = previous ? Math.max(previous.written, startIndex) : stable;
    const keeps = shownFrom < stable;
    const reach = everything
      ? { region: startIndex, walk: reachWalk([]) }
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
      messages[position] = this.budgeted(position, cell, decisions).message;
      this.reduce(position, cell, decisions, laid);
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
      aligned: {
        messages,
        startIndex,
        memory: [...this.currentLayout.memory],
        ...(this.placement.carriedAt !== undefined ? { displaced: this.placement.carriedAt } : {}),
      },
      region,
      protectFrom: decisions.protectFrom,
      hidesOutput: decisions.hides,
      log: viewReductionsLog(laid, keepRecent),
      keptBefore: (kept) => keptViewReductionsBefore(earlier, kept, region, keepRecent),
      newPlaceholders,
    };
  }

  /**
   * The lighter form of every older output from `region` on (of `messages`, the last {@link prepare}'s view), for a
   * history that cannot fit even with all of them. The previous call's forms are taken again where nothing changed.
   */
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
    const { restored } = this.options;
    const scan = (from: number, to: number) => {
      for (let index = from; index < to; index++) {
        if (restored.size > 0 && restored.has(messages[index]!)) continue;
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

  /**
   * With `minReclaimTokens`: the previous micro-compact boundary while moving it to the new one would reclaim fewer
   * tokens than that (the payload from there on stays as it was).
   */
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
   * With `minReclaimTokens`: the previous budget cut while moving it to `cut` would reclaim fewer tokens than that (the
   * outputs between stay whole, over the budget by about that at most). Looks no further than enough.
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

  /** What the view shows for the tool output at `position`. */
  private budgeted(position: number, cell: ToolCell, decisions: ViewDecisions): ViewForm {
    const form = this.beforeBudget(position, cell, decisions);
    return this.overBudget(position, cell, form, decisions) ? this.cells.trimmed(cell)! : form;
  }

  /** True when the tool output budget replaces `form` by its placeholder. */
  private overBudget(position: number, cell: ToolCell, form: ViewForm, decisions: ViewDecisions): boolean {
    return position <= decisions.cut && this.cells.trimmable(cell, form) && !this.keepsWhole(position);
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

  /**
   * The position before which the view shows what it showed in `previous`: older than the current turn both times, on
   * the same side of the budget's cut and of the micro-compact boundary.
   */
  private stableBefore(previous: LaidOut, decisions: ViewDecisions): number {
    const before = previous.decisions;
    let stable = Math.min(previous.messages.length, before.protectFrom, decisions.protectFrom);
    if (before.cut !== decisions.cut) stable = Math.min(stable, Math.min(before.cut, decisions.cut) + 1);
    if (before.microBefore !== decisions.microBefore)
      stable = Math.min(stable, Math.max(0, Math.min(before.microBefore, decisions.microBefore)));
    return Math.max(this.placement.startIndex, stable);
  }

  /**
   * The oldest position a window can reach: walking back by whole tool-call units the way the composer's window does
   * (past the newest user message, invalid units skipped), each message at the fewest tokens it can be sent with, until
   * more than `available` tokens are passed: the start of the unit that passes them (the first position sent when none
   * does). The previous walk's units that did not change still pass them: its oldest unit stays a bound while the
   * history grown above it is small beside it.
   */
  private async reach(
    decisions: ViewDecisions,
    available: number,
    previous: LaidOut | undefined,
    stable: number,
  ): Promise<{ region: number; walk: ReachWalk }> {
    const { base } = this;
    const from = this.placement.startIndex;
    // The walk goes back from the newest user message (from the end when there is none).
    let top = base.length - 1;
    while (top >= from && base[top]!.role !== 'user') top--;
    if (top < from) top = base.length;
    const walked = previous?.walk;
    if (walked) {
      const kept = unitsEndingBy(walked, Math.min(stable, top));
      if (kept > 0 && walked.sums[kept - 1]! > available) {
        const span = walked.ends[kept - 1]! - walked.starts[0]!;
        if (top - walked.ends[kept - 1]! <= span / 4) {
          return { region: walked.starts[0]!, walk: walkPrefix(walked, kept) };
        }
      }
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
        units.push({ start: group.start, end: group.end, tokens });
        total += tokens;
        if (total > available) return { region: group.start, walk: reachWalk(units) };
      }
      end = group.start;
    }
    return { region: from, walk: reachWalk(units) };
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

  /** Records what the view did to the tool output at `position`. */
  private reduce(position: number, cell: ToolCell, decisions: ViewDecisions, into: ViewReductions): void {
    const form = this.beforeBudget(position, cell, decisions);
    const trimmed = this.overBudget(position, cell, form, decisions);
    // An output the budget replaced is reported as trimmed only: its view is never made.
    if (!trimmed && cell.cut)
      into.truncated.push({
        position,
        recoverableFrom: 'tool-output-cache',
        ref: cell.info!.ref.id,
        tokensBefore: cell.info!.rawTokens,
      });
    const { ref } = cell;
    if (form !== cell.shown)
      into.microCompacted.push(
        ref
          ? { position, recoverableFrom: 'tool-output-cache', ref: ref.id }
          : { position, recoverableFrom: 'history' },
      );
    if (trimmed) {
      // Not counted whole just for the report: only the placeholder's tokens are given.
      const tokensAfter = this.cells.trimmed(cell)!.budgetTokens;
      into.trimmed.push({ position, recoverableFrom: 'tool-output-cache', ref: ref!.id, tokensAfter });
    }
  }
}
