import { type ChatMessage, type ReductionRecord, type ToolMessage } from '@ctxkit/core';
import { contentText, groupEndingAt, type HistoryRange, type LighterForm } from '@ctxkit/core/strategy-kit';

import type { CachedOutputSource } from '../cache/cached-outputs';
import { type HistoryLayout, layoutEntries, NO_COMPACTION_LAYOUT, sameLayout } from '../compaction/history-layout';
import { type AlignedView, type LayoutPlacement, placeLayout } from './align-view';
import { currentTurnStart } from './current-turn';
import { lighterFormAt, type LighterFormOptions } from './lighter-form';
import { microCompactPlaceholder } from './micro-compact';
import { type ReachWalk, reachWalk, unitsEndingBy, type WalkedUnit } from './reach-walk';
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

/** What a {@link WorkingView} needs. */
export interface WorkingViewOptions extends ViewCellsOptions {
  /** Token budget of all tool outputs. */
  toolOutputBudget: number;
  /** Outputs the user took back from a trim: shown whole (see {@link RestoredOutputs}). */
  restored: RestoredOutputs;
}

/** What the view decided for the current history (before it is fitted to a payload). */
interface ViewDecisions {
  /** Where the current turn starts: its outputs are never replaced. */
  protectFrom: number;
  /** Tool results before this position are micro-compacted at every payload (`when: "always"`); -1: none. */
  microBefore: number;
  /**
   * The newest output the tool output budget replaced (it and every older one that can be are placeholders); -1: none.
   */
  cut: number;
  /** True when a tool message of the view does not show its whole output. */
  hides: boolean;
}

/** A working view laid over the caller's history, ready to be fitted and composed. */
export interface PreparedView {
  aligned: AlignedView;
  /**
   * First position the payload can reach: the history older than it does not fit the budget even
   * with every output replaced, so the composer's window never looks at it, and it is left as the
   * caller's (its outputs are neither cached nor counted).
   */
  region: number;
  /** Where the current turn starts. */
  protectFrom: number;
  /** True when the view holds an output that is not shown whole. */
  hidesOutput: boolean;
  /**
   * The reductions the view made from `region` on (indexes of the caller's history), to be listed for the history the
   * payload keeps (`ReductionLog.list`).
   */
  log: ReductionLog;
  /**
   * The records of the view's reductions at the kept positions before `region` (see `ComposeRequest.keptReductions`):
   * the first messages a cut window keeps in front of it show the forms an earlier call laid out there.
   */
  keptBefore(kept: ReadonlyArray<HistoryRange>): ReductionRecord[];
  /**
   * Positions where the view shows a placeholder of the tool output budget or of micro-compact `always`, but for those
   * that showed the same in the last call (the last payload could carry them).
   */
  newPlaceholders: number[];
}

/**
 * What one `prepare` laid out: the next keeps its forms before the region and its walk's bound for the positions that
 * did not change.
 */
interface LaidOut {
  /** The history it was laid over (first and last message objects, length), its layout and start. */
  first: ChatMessage | undefined;
  last: ChatMessage | undefined;
  length: number;
  layout: HistoryLayout;
  startIndex: number;
  decisions: ViewDecisions;
  /** The view over the caller's history: tool positions from `written` on hold what the view shows. */
  messages: ChatMessage[];
  written: number;
  /** The reductions at the tool positions from `written` on, in position order. */
  reductions: ViewReductions;
  /** The walk that found how far a window can reach. */
  walk: ReachWalk;
}

/**
 * The working view of one session's history: what would be sent for each message before it is fitted
 * to the budget. Tool outputs are cached (once per message) and shown as copies with their view (or
 * their whole output) and `output_ref`, micro-compacted when `microCompact.when` is `always`, and
 * trimmed to the tool output budget (never the current turn's).
 *
 * Each call lays the view out afresh over what the payload can reach (`region`): the older history
 * does not fit even with every output replaced, so its outputs are neither cached nor counted, and it
 * keeps what the last call showed there while that did not change (else the caller's messages). A
 * compaction, which needs the whole view, builds the rest.
 */
export class WorkingView {
  private readonly cells: ViewCells;
  private layout: HistoryLayout = NO_COMPACTION_LAYOUT;
  /** The caller's history with the carried user message in its place: what the view is made from. */
  private base: ReadonlyArray<ChatMessage> = [];
  private placement: LayoutPlacement = { startIndex: 0 };
  private turn = 0;
  private decisions: Promise<ViewDecisions> | undefined;
  private laidOut: LaidOut | undefined;
  /** The last call, when the view continues it, and the position before which nothing changed since. */
  private reused: { previous: LaidOut | undefined; stable: number } = { previous: undefined, stable: 0 };
  /** The forms of the last {@link everyLighterForm}, over the layout and the positions it was made for. */
  private relief: { laidOut: LaidOut; showRefs: boolean; from: number; end: number; forms: LighterForm[] } | undefined;

  constructor(
    private readonly options: WorkingViewOptions,
    cells?: ViewCells,
  ) {
    this.cells = cells ?? new ViewCells(options);
  }

  /**
   * A copy for a preview: it starts where this view stands (the history, its cells and what the last
   * call laid out, so that it decides as the next call will) and makes the cells it lacks through
   * `outputs`; nothing it does changes this view.
   */
  fork(outputs: CachedOutputSource): WorkingView {
    const fork = new WorkingView({ ...this.options, outputs }, this.cells.fork(outputs));
    fork.layout = this.layout;
    fork.base = this.base;
    fork.placement = this.placement;
    fork.turn = this.turn;
    fork.laidOut = this.laidOut;
    fork.reused = this.reused;
    fork.relief = this.relief;
    return fork;
  }

  /**
   * Keeps nothing of the last call at the next one (the outputs the user took back changed, or the compaction did).
   */
  forgetLastCall(): void {
    this.decisions = undefined;
    this.laidOut = undefined;
    this.reused = { previous: undefined, stable: 0 };
    this.relief = undefined;
  }

  /** True when the output at `position` is one the user took back from a trim (shown whole while it fits). */
  keepsWhole(position: number): boolean {
    const message = this.base[position];
    return message !== undefined && this.options.restored.has(message);
  }

  /** The layout the view follows. */
  get currentLayout(): HistoryLayout {
    return this.layout;
  }

  /**
   * Takes the caller's history (mapped by `layout` onto the compaction) for the calls that follow. O(1) besides a copy
   * of the array when a user message is carried.
   */
  sync(history: ReadonlyArray<ChatMessage>, layout: HistoryLayout, turn: number): void {
    if (layout.state !== this.layout.state || layout.form !== this.layout.form) this.cells.clear();
    else this.cells.truncate(history.length);
    this.layout = layout;
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
  }

  /** Outputs stored for the first time since the last call. */
  takeNewlyCached(): number {
    return this.cells.takeNewlyCached();
  }

  /** `message` with other content (same ref), the same copy from call to call. */
  withContent(message: ToolMessage, content: string): ToolMessage {
    return this.cells.withContent(message, content);
  }

  /** True when `message` carries a ref but does not show its whole output (a view, a placeholder, a cut). */
  hides(message: ChatMessage): boolean {
    return this.cells.hides(message);
  }

  /**
   * Lays the view over the caller's history for the composer, afresh: the positions the payload can
   * reach hold what the view shows for them (with `everything`, all of them); the older ones hold what
   * the last call showed there while the view did not change there since (older than the current
   * turn, on the same side of the tool output budget's cut and of the micro-compact boundary), else the
   * caller's message. `available` is the payload budget: a window never holds more.
   */
  async prepare(available: number, everything = false): Promise<PreparedView> {
    const decisions = await this.decide();
    const { base } = this;
    const { startIndex } = this.placement;
    const length = base.length;
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
    for (let position = region; position < length; position++) {
      if (base[position]!.role !== 'tool') continue;
      const made = this.cellAt(position);
      const cell = made instanceof Promise ? await made : made;
      messages[position] = this.budgeted(position, cell, decisions).message;
      this.reduce(position, cell, decisions, laid);
    }
    this.laidOut = {
      first: base[0],
      last: base[length - 1],
      length,
      layout: this.layout,
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
    const shown = (position: number) => !keeps || position < shownFrom || position >= stable;
    return {
      aligned: {
        messages,
        startIndex,
        memory: [...this.layout.memory],
        ...(this.placement.carriedAt !== undefined ? { displaced: this.placement.carriedAt } : {}),
      },
      region,
      protectFrom: decisions.protectFrom,
      hidesOutput: decisions.hides,
      log: viewReductionsLog(laid, keepRecent),
      keptBefore: (kept) => keptViewReductionsBefore(earlier, kept, region, keepRecent),
      newPlaceholders: [...laid.trimmed, ...laid.microCompacted].map(({ position }) => position).filter(shown),
    };
  }

  /**
   * The lighter form of every older output from `region` on, for a history that cannot fit even with all of them (the
   * region starts past the first position the view sends). `messages` is the view of the last {@link prepare}. The
   * forms of the previous call are taken again for the positions that did not change (a turn then looks only at what
   * is new).
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
    const usable =
      memo !== undefined && previous !== undefined && memo.laidOut === previous && memo.showRefs === showRefs;
    const reuseFrom = usable ? Math.max(memo.from, region) : end;
    const reuseTo = usable ? Math.min(stable, memo.end, end) : end;
    const forms: LighterForm[] = [];
    // The outputs the user took back stay whole: the window leaves them out with the older history when they do not
    // fit.
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
    const decisions = await this.decide();
    const { base } = this;
    const shown: ChatMessage[] = [];
    for (let position = this.layout.keepFrom; position < base.length; position++) {
      if (base[position]!.role !== 'tool') {
        shown[position] = base[position]!;
        continue;
      }
      const made = this.cellAt(position);
      shown[position] = this.budgeted(position, made instanceof Promise ? await made : made, decisions).message;
    }
    return layoutEntries(this.layout, base.length, (index) => shown[index]!);
  }

  /** Tokens of the whole view (retain + summary included), counted newest first and no further than `limit`. */
  async tokensUpTo(limit: number): Promise<number> {
    const decisions = await this.decide();
    const counter = this.options.counter;
    let total = 0;
    for (const message of this.layout.memory) total += counter.countMessage(message);
    if (this.layout.carried) total += counter.countMessage(this.layout.carried.message);
    for (let position = this.base.length - 1; position >= this.layout.keepFrom && total < limit; position--) {
      const message = this.base[position]!;
      if (message.role !== 'tool') {
        total += counter.countMessage(message);
        continue;
      }
      const made = this.cellAt(position);
      total += this.budgeted(position, made instanceof Promise ? await made : made, decisions).tokens;
    }
    return total;
  }

  private decide(): Promise<ViewDecisions> {
    this.decisions ??= this.computeDecisions();
    return this.decisions;
  }

  private async computeDecisions(): Promise<ViewDecisions> {
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

  /**
   * With `microCompact.when: "always"`: the position before which tool results are micro-compacted (all but the newest
   * `keepRecent`).
   */
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
   * With `minReclaimTokens`: the previous call's micro-compact boundary while moving it to the new one
   * would reclaim fewer tokens than that (the results between stay as they were shown, and so does
   * the payload from there on); the new boundary once they reclaim enough together.
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
      const compacted = this.beforeBudget(position, cell, decisions);
      reclaimed += cell.shown.tokens - compacted.tokens;
      if (reclaimed >= enough) return microBefore;
    }
    return previous;
  }

  /**
   * With `minReclaimTokens`: the previous call's tool output budget cut while moving it to `cut`
   * would reclaim fewer tokens than that (the outputs between stay whole, over the tool output budget
   * by about that at most, and the payload from there on stays as it was); `cut` once they reclaim
   * enough together. Looks at the outputs between the two cuts only, and no further than enough.
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

  /**
   * The cell of the tool message at `position`, made when needed (a promise only when the cache asks the store first).
   */
  private cellAt(position: number): ToolCell | Promise<ToolCell> {
    return this.cells.at(position, this.base[position] as ToolMessage, this.turn);
  }

  /**
   * A tool output as the view shows it before the tool output budget: its shown copy, or micro-compacted (`when:
   * "always"`).
   */
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

  /** What the view shows for the tool output at `position`: after micro-compact and the tool output budget. */
  private budgeted(position: number, cell: ToolCell, decisions: ViewDecisions): ViewForm {
    const form = this.beforeBudget(position, cell, decisions);
    if (this.overBudget(position, cell, form, decisions)) return this.cells.trimmed(cell)!;
    return form;
  }

  /** True when the tool output budget replaces `form` (the output at `position`) by its placeholder. */
  private overBudget(position: number, cell: ToolCell, form: ViewForm, decisions: ViewDecisions): boolean {
    return position <= decisions.cut && this.cells.trimmable(cell, form) && !this.keepsWhole(position);
  }

  /**
   * True when `laidOut` was laid over the history the view has now, or over the start of it (the same first and
   * previous last message objects).
   */
  private continues(laidOut: LaidOut): boolean {
    const { base } = this;
    return (
      sameLayout(laidOut.layout, this.layout) &&
      laidOut.startIndex === this.placement.startIndex &&
      laidOut.length > 0 &&
      base.length >= laidOut.length &&
      base[0] === laidOut.first &&
      base[laidOut.length - 1] === laidOut.last
    );
  }

  /**
   * The position before which the view shows what it showed in `previous`: older than the current
   * turn both times, on the same side of the tool output budget's cut and of the micro-compact
   * boundary.
   */
  private stableBefore(previous: LaidOut, decisions: ViewDecisions): number {
    const before = previous.decisions;
    let stable = Math.min(previous.length, before.protectFrom, decisions.protectFrom);
    if (before.cut !== decisions.cut) stable = Math.min(stable, Math.min(before.cut, decisions.cut) + 1);
    if (before.microBefore !== decisions.microBefore)
      stable = Math.min(stable, Math.max(0, Math.min(before.microBefore, decisions.microBefore)));
    return Math.max(this.placement.startIndex, stable);
  }

  /**
   * The oldest position a window can reach: walking back by whole tool-call units the way the
   * composer's window does (past the newest user message, invalid units skipped), each message at
   * the fewest tokens it can be sent with, until more than `available` tokens are passed. The unit
   * where that happens is the last one the window can look at. The units of the previous walk that
   * did not change still hold more than `available` tokens: its oldest unit is still a bound (a
   * window cannot reach past it), kept while the history grown above it is small beside it.
   */
  private async reach(
    decisions: ViewDecisions,
    available: number,
    previous: LaidOut | undefined,
    stable: number,
  ): Promise<{ region: number; walk: ReachWalk }> {
    const { base } = this;
    const from = this.placement.startIndex;
    let top = base.length;
    for (let position = base.length - 1; position >= from; position--) {
      if (base[position]!.role === 'user') {
        top = position;
        break;
      }
    }
    const walked = previous?.walk;
    if (walked) {
      const kept = unitsEndingBy(walked, Math.min(stable, top));
      if (kept > 0 && walked.sums[kept - 1]! > available) {
        const span = walked.ends[kept - 1]! - walked.starts[0]!;
        if (top - walked.ends[kept - 1]! <= span / 4) {
          // A walk is never changed once made: kept whole, it is the same object.
          const walk =
            kept === walked.ends.length
              ? walked
              : {
                  starts: walked.starts.slice(0, kept),
                  ends: walked.ends.slice(0, kept),
                  sums: walked.sums.slice(0, kept),
                };
          return { region: walked.starts[0]!, walk };
        }
      }
    }
    const walk = await this.walkBack(top, available, decisions);
    return { region: walk.region, walk: reachWalk(walk.units) };
  }

  /**
   * Walks back from `top` to the first position the view sends by whole tool-call units (invalid ones
   * skipped) until more than `available` tokens are passed: `region` is the start of the unit that
   * passed them, or that first position when none did.
   */
  private async walkBack(
    top: number,
    available: number,
    decisions: ViewDecisions,
  ): Promise<{ units: WalkedUnit[]; region: number }> {
    const { base } = this;
    const from = this.placement.startIndex;
    const units: WalkedUnit[] = [];
    let end = top;
    let total = 0;
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
        if (total > available) return { units, region: group.start };
      }
      end = group.start;
    }
    return { units, region: from };
  }

  /**
   * The fewest tokens the tool output at `position` can be sent with: as the view shows it, or as a placeholder when it
   * can give way under pressure.
   */
  private fewestTokens(position: number, cell: ToolCell, decisions: ViewDecisions): number {
    const form = this.budgeted(position, cell, decisions);
    if (position >= decisions.protectFrom) return form.tokens;
    let fewest = form.tokens;
    const trimmed = this.cells.trimmed(cell);
    if (trimmed) fewest = Math.min(fewest, trimmed.tokens);
    const micro = this.options.config.microCompact;
    if (micro.enabled && contentText(form.message.content as ToolMessage['content']).length > micro.minContentLength) {
      fewest = Math.min(fewest, this.cells.microCompacted(cell, toolNameAt(this.base, position)).tokens);
    }
    return fewest;
  }

  /**
   * Records what the view did to the tool output at `position`: an in-context view, micro-compacted (`when: "always"`),
   * a placeholder of the tool output budget.
   */
  private reduce(position: number, cell: ToolCell, decisions: ViewDecisions, into: ViewReductions): void {
    const form = this.beforeBudget(position, cell, decisions);
    const trimmed = this.overBudget(position, cell, form, decisions);
    // An output the budget replaced is reported as trimmed only: the payload does not show its view, which is never
    // made for it.
    if (!trimmed && cell.cut)
      into.truncated.push({
        position,
        recoverableFrom: 'tool-output-cache',
        ref: cell.info!.ref.id,
        tokensBefore: cell.info!.rawTokens,
      });
    if (form !== cell.shown) {
      const { ref } = cell;
      into.microCompacted.push({
        position,
        recoverableFrom: ref ? 'tool-output-cache' : 'history',
        ...(ref ? { ref: ref.id } : {}),
      });
    }
    if (trimmed) {
      // An output the budget replaced is not counted whole just for the report: only the placeholder's tokens are
      // given.
      into.trimmed.push({
        position,
        recoverableFrom: 'tool-output-cache',
        ref: cell.ref!.id,
        tokensAfter: this.cells.trimmed(cell)!.budgetTokens,
      });
    }
  }
}
