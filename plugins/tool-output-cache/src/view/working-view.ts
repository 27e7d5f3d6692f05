import { contentText, groupEndingAt, type ChatMessage, type ToolMessage } from '@ctxkit/core';
import { layoutEntries, NO_COMPACTION_LAYOUT, type HistoryLayout } from '../compaction/history-layout';
import { placeLayout, type AlignedView, type LayoutPlacement } from './align-view';
import { currentTurnStart } from './current-turn';
import { microCompactPlaceholder } from './micro-compact';
import { ReductionLog } from './reduction-log';
import { toolNameAt } from './tool-call-names';
import { toolOutputBudgetCut } from './tool-output-budget';
import { ViewCells, type ToolCell, type ViewCellsOptions, type ViewForm } from './view-cells';
import type { ViewEntry } from './view-entry';

/** What a {@link WorkingView} needs. */
export interface WorkingViewOptions extends ViewCellsOptions {
  /** Token budget of all tool outputs. */
  toolOutputBudget: number;
}

/** What the view decided for the current history (before it is fitted to a payload). */
interface ViewDecisions {
  /** Where the current turn starts: its outputs are never replaced. */
  protectFrom: number;
  /** Tool results before this position are micro-compacted at every payload (`when: "always"`); -1: none. */
  microBefore: number;
  /** The newest output the tool output budget replaced (it and every older one that can be are placeholders); -1: none. */
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
  /** The reductions the view made (indexes of the caller's history). */
  log: ReductionLog;
}

const TOOL_BUDGET_REASON = 'tool outputs passed the tool output budget';
const VIEW_REASON = 'tool output shown as an in-context view';

/**
 * The working view of one session's history: what would be sent for each message before it is fitted
 * to the budget. Tool outputs are cached (once per message) and shown as copies with their view (or
 * their whole output) and `output_ref`, micro-compacted when `microCompact.when` is `always`, and
 * trimmed to the tool output budget (never the current turn's).
 *
 * The view is kept from call to call and built lazily, newest first: a call caches, views and counts
 * only what it has not seen and what the payload can reach, so a turn costs the same on a history of
 * 100 messages as on one of 10,000. A compaction, which needs the whole view, builds the rest.
 */
export class WorkingView {
  private readonly cells: ViewCells;
  private history: ReadonlyArray<ChatMessage> = [];
  private layout: HistoryLayout = NO_COMPACTION_LAYOUT;
  /** The caller's history with the carried user message in its place: what the view is made from. */
  private base: ReadonlyArray<ChatMessage> = [];
  private placement: LayoutPlacement = { startIndex: 0 };
  private turn = 0;
  private decisions: Promise<ViewDecisions> | undefined;

  constructor(private readonly options: WorkingViewOptions) {
    this.cells = new ViewCells(options);
  }

  /** The layout the view follows. */
  get currentLayout(): HistoryLayout {
    return this.layout;
  }

  /** Takes the caller's history (mapped by `layout` onto the compaction) for the calls that follow. O(1) besides a copy of the array when a user message is carried. */
  sync(history: ReadonlyArray<ChatMessage>, layout: HistoryLayout, turn: number): void {
    if (layout.state !== this.layout.state || layout.form !== this.layout.form) this.cells.clear();
    else this.cells.truncate(history.length);
    this.history = history;
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
   * Lays the view over the caller's history for the composer: the positions the payload can reach
   * hold what the view shows for them (with `everything`, all of them), the older ones keep the
   * caller's message. `available` is the payload budget: a window never holds more.
   */
  async prepare(available: number, everything = false): Promise<PreparedView> {
    const decisions = await this.decide();
    const { base } = this;
    const { startIndex } = this.placement;
    const region = everything ? startIndex : await this.reach(decisions, available);
    const messages = base.slice();
    for (let position = region; position < base.length; position++) {
      if (base[position]!.role === 'tool') messages[position] = this.budgeted(position, this.knownCell(position) ?? (await this.cellAt(position)), decisions).message;
    }
    const log = this.log(region, decisions);
    return {
      aligned: { messages, startIndex, memory: [...this.layout.memory], ...(this.placement.carriedAt !== undefined ? { displaced: this.placement.carriedAt } : {}) },
      region,
      protectFrom: decisions.protectFrom,
      hidesOutput: decisions.hides,
      log,
    };
  }

  /** The whole view, retain + summary first (every output cached): what a compaction summarizes. */
  async entries(): Promise<ViewEntry[]> {
    const decisions = await this.decide();
    const { base } = this;
    const shown: ChatMessage[] = [];
    for (let position = this.layout.keepFrom; position < base.length; position++) {
      shown[position] = base[position]!.role === 'tool' ? this.budgeted(position, this.knownCell(position) ?? (await this.cellAt(position)), decisions).message : base[position]!;
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
      total += message.role === 'tool' ? this.budgeted(position, this.knownCell(position) ?? (await this.cellAt(position)), decisions).tokens : counter.countMessage(message);
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
    const decisions: ViewDecisions = { protectFrom, microBefore: this.microBefore(from), cut: -1, hides: false };
    if (!config.toolOutputCache.enabled) return decisions;
    decisions.cut = await toolOutputBudgetCut({
      messages: base,
      from,
      protectFrom,
      budgetTokens: toolOutputBudget,
      output: (position) => {
        const measure = (cell: ToolCell) => {
          const form = this.beforeBudget(position, cell, decisions);
          if (this.cells.hides(form.message)) decisions.hides = true;
          return { budgetTokens: form.budgetTokens, trimmable: this.cells.trimmable(cell, form) };
        };
        const cell = this.knownCell(position);
        return cell ? measure(cell) : this.cellAt(position).then(measure);
      },
    });
    // The cut is a placeholder; without a cut every output of the view was looked at.
    if (decisions.cut !== -1) decisions.hides = true;
    return decisions;
  }

  /** With `microCompact.when: "always"`: the position before which tool results are micro-compacted (all but the newest `keepRecent`). */
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

  /** The cell of the tool message at `position`, made when needed. */
  private cellAt(position: number): Promise<ToolCell> {
    return this.cells.at(position, this.base[position] as ToolMessage, this.turn);
  }

  /** The cell of the tool message at `position` when it is made already (no wait). */
  private knownCell(position: number): ToolCell | undefined {
    return this.cells.known(position, this.base[position] as ToolMessage);
  }

  /** A tool output as the view shows it before the tool output budget: its shown copy, or micro-compacted (`when: "always"`). */
  private beforeBudget(position: number, cell: ToolCell, decisions: ViewDecisions): ViewForm {
    if (position >= decisions.microBefore || cell.originalLength <= this.options.config.microCompact.minContentLength) return cell.shown;
    const name = toolNameAt(this.base, position, this.placement.startIndex);
    if (contentText(cell.shown.message.content as ToolMessage['content']) === microCompactPlaceholder(name)) return cell.shown;
    return this.cells.microCompacted(cell, name);
  }

  /** What the view shows for the tool output at `position`: after micro-compact and the tool output budget. */
  private budgeted(position: number, cell: ToolCell, decisions: ViewDecisions): ViewForm {
    const form = this.beforeBudget(position, cell, decisions);
    if (position <= decisions.cut && this.cells.trimmable(cell, form)) return this.cells.trimmed(cell)!;
    return form;
  }

  /**
   * The oldest position a window can reach: walking back by whole tool-call units the way the
   * composer's window does (past the newest user message, invalid units skipped), each message at
   * the fewest tokens it can be sent with, until more than `available` tokens are passed. The unit
   * where that happens is the last one the window can look at.
   */
  private async reach(decisions: ViewDecisions, available: number): Promise<number> {
    const { base } = this;
    const from = this.placement.startIndex;
    let end = base.length;
    for (let position = base.length - 1; position >= from; position--) {
      if (base[position]!.role === 'user') {
        end = position;
        break;
      }
    }
    let total = 0;
    while (end > from) {
      const group = groupEndingAt(base, end);
      if (group.start < from) return from;
      if (group.kind !== 'orphan-tool' && group.kind !== 'incomplete-tool-exchange') {
        for (let position = group.start; position < group.end; position++) {
          const message = base[position]!;
          if (message.role !== 'tool') total += this.options.counter.countMessage(message);
          else total += this.fewestTokens(position, this.knownCell(position) ?? (await this.cellAt(position)), decisions);
        }
        if (total > available) return group.start;
      }
      end = group.start;
    }
    return from;
  }

  /** The fewest tokens the tool output at `position` can be sent with: as the view shows it, or as a placeholder when it can give way under pressure. */
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

  /** The reductions of the view from `region` on: in-context views, micro-compacted results (`when: "always"`), outputs over the tool output budget. */
  private log(region: number, decisions: ViewDecisions): ReductionLog {
    const log = new ReductionLog();
    const { base } = this;
    const tools: Array<{ position: number; cell: ToolCell }> = [];
    for (let position = region; position < base.length; position++) {
      if (base[position]!.role !== 'tool') continue;
      const cell = this.knownCell(position)!;
      tools.push({ position, cell });
      if (cell.cut) log.add('truncated', { from: position }, { reason: VIEW_REASON, recoverableFrom: 'tool-output-cache', refs: [cell.info!.ref.id], tokensBefore: cell.info!.rawTokens });
    }
    if (decisions.microBefore !== -1) {
      const keepRecent = this.options.config.microCompact.keepRecent;
      for (const { position, cell } of tools) {
        if (this.beforeBudget(position, cell, decisions) === cell.shown) continue;
        const ref = (cell.shown.message as ToolMessage).output_ref;
        log.add('micro-compacted', { from: position }, { reason: `tool result older than the newest ${keepRecent}`, recoverableFrom: ref ? 'tool-output-cache' : 'history', ...(ref ? { refs: [ref.id] } : {}) });
      }
    }
    for (const { position, cell } of tools) {
      if (position > decisions.cut) break;
      const form = this.beforeBudget(position, cell, decisions);
      if (!this.cells.trimmable(cell, form)) continue;
      const ref = (form.message as ToolMessage).output_ref!;
      // An output the budget replaced is not counted whole just for the report: only the placeholder's tokens are given.
      log.add('trimmed', { from: position }, { reason: TOOL_BUDGET_REASON, recoverableFrom: 'tool-output-cache', refs: [ref.id], tokensAfter: this.cells.trimmed(cell)!.budgetTokens });
    }
    return log;
  }
}
