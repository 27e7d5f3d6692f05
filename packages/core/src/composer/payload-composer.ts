import type { ChatMessage, SystemMessage, UserMessage } from '../contracts/chat-message';
import type { ComposeOptions } from '../contracts/context-manager';
import type { LLMPayload, PayloadBudget, ReductionRecord, UsageLevel } from '../contracts/llm-payload';
import type { ToolDefinition } from '../contracts/tool-definition';
import { BudgetExceededError } from '../errors/budget-exceeded-error';
import type { CtxkitEventBase } from '../events/ctxkit-events';
import { safeEmit, type CtxkitEventBus } from '../events/event-bus';
import { emitReductions } from '../events/reduction-events';
import { buildPayload } from '../ledger/build-payload';
import { assertHistoryShape } from '../messages/assert-history-shape';
import { groupAt } from '../messages/group-tool-calls';
import { HistoryLedger, messageFingerprint } from '../ledger/history-ledger';
import { OLDER_THAN_WINDOW_REASON, selectHistoryWindow, type HistoryWindow } from '../ledger/select-history-window';
import { HeldOutputCuts, type OutputCut } from '../ledger/held-output-cuts';
import type { ITokenCounter } from '../token-counting/token-counter';
import { fitDynamicContext } from './fit-dynamic-context';
import { fitMemoryBlock, type FittedMemoryBlock } from './fit-memory-block';
import type { MemoryBlock, MemoryBlockOutcome } from './memory-block';
import { DEFAULT_MEMORY_SHARE, memoryAllowance } from './memory-share';
import { relabelCoveredDrops } from './relabel-covered-drops';
import { ToolResultCollapser } from './tool-result-collapser';

/** Who composes: names events and errors. */
export interface PayloadComposerOwner {
  agentId: string;
  sessionId: string;
  strategyId: string;
  events: CtxkitEventBus;
}

/** Options of {@link PayloadComposer}. */
export interface PayloadComposerOptions {
  owner: PayloadComposerOwner;
  /** Model named in stats. */
  model: string;
  counter: ITokenCounter;
  /** The budget of every payload (called once per compose; cache it when it is costly). */
  budget: () => PayloadBudget;
}

/** One composition: what the strategy contributes on top of the caller's arguments. */
export interface ComposeRequest extends ComposeOptions {
  systemPrompt: string;
  history: ReadonlyArray<ChatMessage>;
  tools: ReadonlyArray<ToolDefinition>;
  ragContext?: string;
  /** The strategy's memory, in priority order (the first gets its share first). */
  memory?: ReadonlyArray<MemoryBlock>;
  /** Share of the room the memory blocks may take together. @default DEFAULT_MEMORY_SHARE */
  memoryShare?: number;
  /**
   * History index before which nothing is sent verbatim (a lean mode that keeps only the last turns).
   * `[0, startIndex)` is reported as `dropped` with `startReason`, or as what a memory block covering it did.
   * @default 0
   */
  startIndex?: number;
  /** Reason of the drop of `[0, startIndex)`. */
  startReason?: string;
  /** The strategy's own reductions (a compaction, a trim), added to the stats. */
  reductions?: ReadonlyArray<ReductionRecord>;
  /**
   * Strategy-specific stats: this object becomes `stats.extra` (a strategy may fill it in after
   * composing); the composer adds `heldMemory` to it when it sends a held memory block.
   */
  extra?: Record<string, unknown>;
  /**
   * When the history no longer fits, how far to cut it back: the window is refilled to this share of
   * the room, and its start then holds while the next turns only append (the provider's prompt cache
   * keeps serving the payload's start until the next cut). 1 cuts only what must go on every call.
   * @default 1
   */
  cutBackRatio?: number;
  /**
   * With `cutBackRatio` below 1: share of the room that keeps the conversation's first messages (the
   * task, the first lookups) in front of the window when the history is cut, so that they stay in
   * the payload and in its cached prefix. 0 keeps none.
   * @default 0
   */
  keepFirstShare?: number;
  /**
   * Compose a candidate layout: nothing is remembered and no event is emitted, as for a preview,
   * until the strategy settles on one with {@link PayloadComposer.adopt} (or composes its payload
   * anew). For strategies that try several layouts of one call (which outputs to replace) before
   * sending one. @default false
   */
  probe?: boolean;
  /**
   * For a strategy that grows one history array in place from compose to compose (a working view
   * over the caller's history): when `history` is the array this composer was given last, its
   * messages before this index are the same objects as then (it changed only from here on, or grew).
   * The window it kept is then checked again only from here, so a turn costs what changed, not the
   * window. Leave it out unless every write into the array is accounted for: a wrong index lets
   * stale token counts through, and the payload can exceed the budget.
   */
  historyUnchangedBefore?: number;
  /** Turn number for events. */
  turn: number;
  /** Emit `history-trim`, `tool-output-trim`, `usage-level-change` and `payload-composed`. @default true */
  emitEvents?: boolean;
  /**
   * Compose without remembering anything (a preview): no event, the held window start and the
   * previous payload (for `repeatedPrefixTokens`) stay as they were, so the next real compose is the
   * one it would have been. @default false
   */
  preview?: boolean;
}

/** What {@link PayloadComposer.compose} returns. */
export interface ComposedPayload {
  payload: LLMPayload;
  /** The recent history selected (indexes into the caller's history). */
  window: HistoryWindow;
  /** What became of each memory block, in the request's order. */
  memory: MemoryBlockOutcome[];
  /** Tokens left for memory and history after the system prompt, tools and dynamic context. */
  roomTokens: number;
  /** Tokens memory blocks may take together in this room (their share). */
  memoryAllowanceTokens: number;
  /**
   * The payload this conversation sent before (the last composed without `probe` or `preview`, or
   * adopted) and how this one repeats it: `messages` is the composer's own copy of its messages
   * (never changed; the same array until another payload is sent), `repeated` how many of this
   * payload's leading messages are the same objects as its. What a strategy reads this payload
   * against without comparing or copying the messages again. Undefined for the first payload.
   */
  previous?: PreviousPayload;
}

/** The payload sent before a composed one, and how many of its leading messages the new one repeats. */
export interface PreviousPayload {
  messages: ReadonlyArray<ChatMessage>;
  repeated: number;
  /**
   * When the new payload's window continues the previous payload's (a window that slid or grew over
   * the same history): its messages from `at` on are `shared` messages of `messages` from `from` on,
   * the same objects (at least that many; the runs may go on). Known from where both windows start in
   * the history, without comparing the messages. Undefined when it is not known so.
   */
  window?: { at: number; from: number; shared: number };
}

const NO_MEMORY: ReadonlyArray<MemoryBlock> = [];
const NO_CUTS: ReadonlyMap<ChatMessage, OutputCut> = new Map();

/** The first groups kept in front of a cut window: history `[start, end)`, `tokens` in all. */
interface KeptHead {
  start: number;
  end: number;
  tokens: number;
  /** The turn (its user message's position, plus one) the head was last used for. */
  user: number;
  /** The kept messages as they were when the head was chosen (it holds while they are the same). */
  messages: ChatMessage[];
  /** The head gave way to a turn that needed its room: it stays out until the window is cut again. */
  gaveWay?: boolean;
}

/** `window` with the kept head in front of it (the window as it is when the head is empty). */
function withHead(history: ReadonlyArray<ChatMessage>, startIndex: number, head: KeptHead, window: HistoryWindow): HistoryWindow {
  if (head.end <= startIndex) return window;
  const verbatim = head.end - startIndex + (window.fromIndex === head.end ? (window.verbatim ?? 0) : 0);
  return { ...window, messages: [...history.slice(startIndex, head.end), ...window.messages], fromIndex: startIndex, tokens: head.tokens + window.tokens, verbatim };
}

/** How far the memory blocks with content stand for the history (`covers.until`), undefined without such a block. */
function coveredUntil(blocks: ReadonlyArray<MemoryBlock>): number | undefined {
  let until: number | undefined;
  for (const block of blocks) if (block.covers !== undefined && block.content.length > 0) until = Math.max(until ?? 0, block.covers.until);
  return until;
}

/**
 * Whether every held block in `candidates` (one that is not the request's `blocks` block) still
 * stands for its newer content: the messages read between the two (from what the held block covers
 * to what the newer one covers) are all in the window, so what the newer block adds is there
 * verbatim. An output the window sends cut (head and tail, reported as `truncated`) counts as
 * there: refreshing the block for it would change the payload's start on most steps of a turn that
 * reads large outputs, and keeping the older block leaves more room for the window (measured on
 * tau-bench airline at 4,000: more facts kept, not fewer).
 */
function heldMemoryStillCovered(window: HistoryWindow, startIndex: number, candidates: ReadonlyArray<MemoryBlock>, blocks: ReadonlyArray<MemoryBlock>): boolean {
  return candidates.every((block, index) => {
    const current = blocks[index]!;
    if (block === current) return true;
    const from = block.covers?.until ?? 0;
    const to = Math.max(from, current.covers?.until ?? 0);
    return startIndex <= from && window.reductions.every((record) => record.messages === 0 || record.action === 'truncated' || record.to <= from || record.from >= to);
  });
}

/**
 * The budget-filling composer every standard strategy builds its payload with. In priority order it
 * places the system prompt and tool definitions (never cut; a typed error when they alone exceed the
 * budget), the dynamic context (cut before it takes the newest user message's room), the strategy's
 * memory blocks (up to their share of the room, shortened or left out before the newest user
 * message would lose its room), and fills everything left with the newest history, by whole
 * tool-call groups. Memory never leaves budget unused: when the history fits whole beside it the
 * blocks may take what is left, and a block that only repeats what the window holds is left out.
 *
 * Every reduction is reported in `stats` (history indexes) and as an event. One composer serves one
 * conversation: its ledger makes a turn's cost grow with the new messages only.
 */
export class PayloadComposer {
  readonly ledger: HistoryLedger;
  /** The history last checked for shape: a call checks only the messages appended since. */
  private checked: { first: unknown; last: unknown; length: number } | undefined;
  private readonly collapser = new ToolResultCollapser();
  private readonly systemMessages = new Map<string, SystemMessage>();
  private readonly memoryMessages = new Map<string, SystemMessage | UserMessage>();
  private level: UsageLevel = 'ok';
  /**
   * The messages and tools of the previous payload (to count what the next one repeats), and the
   * tool list it was asked with: the same list again (tool lists are immutable once given, as their
   * cached counts assume) is the same tools without comparing them.
   */
  private previousPayload: { messages: readonly ChatMessage[]; tools: ReadonlyArray<ToolDefinition>; requested: ReadonlyArray<ToolDefinition> } | undefined;
  /**
   * The previous payload's window as far as it is its history's own messages one after the other
   * (`verbatim` of them from `fromIndex`, after `lead` leading messages), and the position of that
   * history array before which it has not changed since, by what each compose since said
   * (`historyUnchangedBefore`): what the next payload repeats of it need not be compared there.
   */
  private previousWindow: { history: ReadonlyArray<ChatMessage>; fromIndex: number; lead: number; verbatim: number; unchangedBefore: number } | undefined;
  /** Composes so far (a probe adopted after another compose cannot vouch for its window). */
  private composes = 0;
  /** Where the window started at the last cut back (see `cutBackRatio`), while it holds. */
  private heldStart: { index: number; message: ChatMessage; fingerprint: string } | undefined;
  /** The conversation's first groups kept before a cut window (see `keepFirstShare`), while they hold. */
  private heldHead: KeptHead | undefined;
  /** The current turn's output cuts of the previous payload, held while they fit (see `cutBackRatio`). */
  private heldCuts: HeldOutputCuts | undefined;
  /** What each probe composed would remember, until one is adopted (see `ComposeRequest.probe`). */
  private probes = new WeakMap<LLMPayload, () => void>();
  /** Memory blocks of the previous payload that may be sent again (see `MemoryBlock.holds`), by name. */
  private readonly heldMemory = new Map<string, { block: MemoryBlock; anchor: string | undefined }>();
  /**
   * The shortened form each memory block had in the previous payload, by name (see `cutBackRatio`):
   * sent again while the block's content is the same, it still fits and the window is not cut.
   */
  private readonly heldForms = new Map<string, { content: string; message: SystemMessage | UserMessage; tokens: number; fullTokens: number }>();

  constructor(private readonly options: PayloadComposerOptions) {
    this.ledger = new HistoryLedger(options.counter);
  }

  /**
   * Composes one payload.
   * @throws BudgetExceededError (`CTXKIT_BUDGET_EXCEEDED`) when system prompt + tools exceed the budget, or not even the truncated newest user message fits
   */
  compose(request: ComposeRequest): ComposedPayload {
    const { counter, owner } = this.options;
    this.checkHistoryShape(request.history);
    const budget = this.options.budget();
    const original = request.history;
    const n = original.length;
    const startIndex = Math.min(n, Math.max(0, Math.floor(request.startIndex ?? 0)));

    const system = [this.systemMessage(request.systemPrompt)];
    const systemTokens = counter.countMessages(system);
    const toolTokens = counter.countTools(request.tools);
    if (systemTokens + toolTokens > budget.available) {
      throw new BudgetExceededError(owner.strategyId, { available: budget.available, required: systemTokens + toolTokens, sections: { system: systemTokens, tools: toolTokens } });
    }

    const collapsed = request.collapseOlderToolResults ? this.collapser.collapse(original) : undefined;
    const history: ReadonlyArray<ChatMessage> = collapsed ? collapsed.history : original;
    const unchangedBefore = history === original ? request.historyUnchangedBefore : undefined;
    this.ledger.sync(history, unchangedBefore);
    const compose = ++this.composes;
    const sentWindow = this.previousWindow;
    if (sentWindow !== undefined) sentWindow.unchangedBefore = sentWindow.history === history && unchangedBefore !== undefined ? Math.min(sentWindow.unchangedBefore, unchangedBefore) : 0;

    let room = budget.available - systemTokens - toolTokens;
    const userTokens = this.newestUserTokens(history, startIndex, room);
    const dynamic = fitDynamicContext(request.ragContext, room, userTokens, n, counter, (content) => this.systemMessage(content));
    room -= dynamic.tokens;

    const blocks = request.memory ?? NO_MEMORY;
    const cutBackRatio = request.cutBackRatio ?? 1;
    const heldCuts = cutBackRatio < 1 ? this.heldCutsAt(cutBackRatio) : undefined;
    const selectWindow = (tokens: number): HistoryWindow =>
      selectHistoryWindow({ history, startIndex, budgetTokens: tokens, counter, ledger: this.ledger, strategyId: owner.strategyId, heldCuts });
    const keepsAll = (window: HistoryWindow): boolean =>
      startIndex === 0 && window.fromIndex <= 0 && !window.reductions.some((record) => record.action === 'dropped' && record.reason === OLDER_THAN_WINDOW_REASON);

    const place = (candidates: ReadonlyArray<MemoryBlock>, holdForms: boolean): { fitted: FittedMemoryBlock[]; window: HistoryWindow } => {
      // Blocks that only repeat history are not needed when the whole history fits the room.
      let redundant = new Set<MemoryBlock>();
      let allowance = Math.min(memoryAllowance(room, request.memoryShare ?? DEFAULT_MEMORY_SHARE), Math.max(0, room - userTokens));
      if (candidates.some((block) => block.omitWhenWindowCovers)) {
        const full = selectWindow(room);
        if (keepsAll(full)) redundant = new Set(candidates.filter((block) => block.omitWhenWindowCovers));
        // A block that only stands for older history never displaces more of the newest history than
        // the history it stands for: its allowance is at most what the full window leaves out.
        else if (candidates.every((block) => block.omitWhenWindowCovers)) allowance = Math.min(allowance, this.tokensBefore(history, full.fromIndex, startIndex, allowance));
      }
      let fitted = this.fitBlocks(candidates, redundant, allowance, holdForms);
      const historyRoom = room - fitted.reduce((sum, block) => sum + block.tokens, 0);
      let window = selectWindow(historyRoom);
      if (heldCuts) window = this.holdWindowStart(history, startIndex, historyRoom, heldCuts, request.keepFirstShare ?? 0, window, coveredUntil(candidates));
      if (fitted.some((block) => block.outcome === 'shortened' || block.outcome === 'left-out') && keepsAll(window)) {
        // The history fits whole beside a shortened block: the block may take what is left.
        fitted = this.fitBlocks(candidates, redundant, room - window.tokens, holdForms);
      }
      return { fitted, window };
    };
    const heldBefore = { start: this.heldStart, head: this.heldHead };
    // A block shortened in the previous payload keeps that form while the window is not cut (a larger
    // form would change the payload's start); a cut fits every block afresh.
    const placeHolding = (candidates: ReadonlyArray<MemoryBlock>): { fitted: FittedMemoryBlock[]; window: HistoryWindow } => {
      const holding = heldCuts !== undefined && this.heldForms.size > 0 ? place(candidates, true) : undefined;
      if (holding !== undefined && this.heldStart === heldBefore.start) return holding;
      this.heldStart = heldBefore.start;
      this.heldHead = heldBefore.head;
      return place(candidates, false);
    };
    const heldBlocks = heldCuts && !collapsed ? this.heldMemoryFor(blocks, history) : undefined;
    let placed = heldBlocks ? placeHolding(heldBlocks) : undefined;
    if (placed === undefined || !heldMemoryStillCovered(placed.window, startIndex, heldBlocks!, blocks)) {
      // The window was cut past what a held block covers: every block is sent as it is now.
      this.heldStart = heldBefore.start;
      this.heldHead = heldBefore.head;
      placed = placeHolding(blocks);
    }
    const { fitted, window } = placed;
    const heldAfter = { start: this.heldStart, head: this.heldHead };
    this.heldStart = heldBefore.start;
    this.heldHead = heldBefore.head;
    const heldMemory = fitted.filter((block, index) => block.message !== undefined && block.block !== blocks[index]).map((block) => block.block.name);
    const reductions: ReductionRecord[] = [...(request.reductions ?? []), ...dynamic.reductions, ...this.blockReductions(fitted, n)];
    if (collapsed) {
      const kept = new Set<ChatMessage>(window.messages);
      reductions.push(...collapsed.reductions.filter((record) => kept.has(history[record.from]!)));
    }
    const older = new Set([OLDER_THAN_WINDOW_REASON]);
    const windowRecords: ReductionRecord[] = [];
    if (startIndex > 0) {
      const reason = request.startReason ?? 'before the part of the history this strategy sends verbatim';
      older.add(reason);
      windowRecords.push({ action: 'dropped', from: 0, to: startIndex, messages: startIndex, tokensAfter: 0, reason, recoverableFrom: 'history' });
    }
    windowRecords.push(...window.reductions);
    const sent = fitted.filter((block) => block.message !== undefined).map((block) => block.block);
    const relabeled = relabelCoveredDrops(windowRecords, older, sent);

    // System-role blocks come before every user-role one (a summary, a state, recalled turns): the
    // conversation starts after the last system message, so the dynamic context (a system message)
    // comes before a user-role block even when the block is placed right after the system prompt.
    // User-role blocks keep their placements' order, then the history follows them.
    const sentMessages = (placed: (block: MemoryBlock) => boolean, role: 'system' | 'user') =>
      fitted.filter((block) => block.message !== undefined && block.message.role === role && placed(block.block)).map((block) => block.message!);
    const afterSystem = (block: MemoryBlock) => block.placement === 'after-system';
    const beforeHistory = (block: MemoryBlock) => block.placement !== 'after-system';
    const leading = sentMessages(afterSystem, 'system');
    const trailing = [...sentMessages(beforeHistory, 'system'), ...sentMessages(afterSystem, 'user'), ...sentMessages(beforeHistory, 'user')];
    const payload = buildPayload({
      strategyId: owner.strategyId,
      model: this.options.model,
      counter,
      budget,
      sections: { system, tools: request.tools as ToolDefinition[], dynamic: dynamic.messages, leadingMemory: leading, memory: trailing, history: { ...window, reductions: relabeled } },
      historyLength: n,
      historyInputTokens: collapsed ? () => counter.countMessages(original) : () => this.ledger.totalTokens(history),
      otherInputTokens: systemTokens + toolTokens + dynamic.inputTokens + fitted.reduce((sum, block) => sum + block.fullTokens, 0),
      // Each block was counted (or gave its exact count) when it was fitted.
      memoryTokens: fitted.reduce((sum, block) => sum + block.tokens, 0),
      reductions,
      ...(request.extra || heldMemory.length > 0 ? { extra: request.extra ?? {} } : {}),
    });
    // The strategy's own `extra` object is the payload's (a strategy may fill it in after composing).
    if (heldMemory.length > 0) payload.stats.extra!.heldMemory = heldMemory;
    const sentBefore = this.previousPayload;
    const repeated = this.repeatedMessages(payload, window, history);
    payload.stats.repeatedPrefixTokens = this.repeatedPrefixTokens(payload, repeated, request.tools, window.truncatedMessages === 0);
    // What the next compose builds on: the held window start and head, output cuts and memory blocks, and this payload.
    const remember = (): void => {
      this.heldStart = heldAfter.start;
      this.heldHead = heldAfter.head;
      this.heldCuts = heldCuts && new HeldOutputCuts(cutBackRatio, window.outputCuts ?? NO_CUTS);
      if (heldCuts) this.rememberMemory(fitted, history);
      else this.heldMemory.clear();
      this.rememberForms(heldCuts ? fitted : []);
      this.previousPayload = { messages: payload.messages.slice(), tools: payload.tools, requested: request.tools };
      const lead = payload.messages.length - window.messages.length;
      this.previousWindow =
        window.verbatim !== undefined && this.composes === compose ? { history, fromIndex: window.fromIndex, lead, verbatim: window.verbatim, unchangedBefore: Number.POSITIVE_INFINITY } : undefined;
    };
    if (request.probe) this.probes.set(payload, remember);
    else if (!request.preview) remember();
    if ((request.emitEvents ?? true) && !request.preview && !request.probe) this.emitComposed(payload, request.turn);
    return {
      payload,
      window,
      memory: fitted.map((block) => block.outcome),
      roomTokens: room,
      memoryAllowanceTokens: memoryAllowance(room, request.memoryShare ?? DEFAULT_MEMORY_SHARE),
      ...(sentBefore ? { previous: { messages: sentBefore.messages, repeated, ...this.continuedWindow(sentWindow, history, window, payload.messages.length - window.messages.length) } } : {}),
    };
  }

  /**
   * The window with a held start: while the history from the start of the last cut still fits, the
   * window keeps that start (older history reported as dropped), so consecutive payloads share their
   * beginning, even when the whole history would fit again, until a cut would keep all of it; when it
   * no longer fits, the window is cut back to `ratio` of the room (never truncating
   * more of the current turn than the full window would, and dropping no more history than a memory
   * block covers or than must go) and its start is held from there. With
   * `keepFirstShare`, the conversation's first whole groups (up to that share of the room, never the
   * current turn) are kept before the window and held too, so a cut leaves them in the cached prefix;
   * a head that gave way to a turn comes back at the next cut.
   */
  private holdWindowStart(history: ReadonlyArray<ChatMessage>, startIndex: number, room: number, heldCuts: HeldOutputCuts, keepFirstShare: number, full: HistoryWindow, covered: number | undefined): HistoryWindow {
    const held = this.heldStart;
    const stillThere = held !== undefined && held.index < history.length && (history[held.index] === held.message || messageFingerprint(history[held.index]!) === held.fingerprint);
    const cuts = full.reductions.some((record) => record.action === 'dropped' && record.reason === OLDER_THAN_WINDOW_REASON);
    // A cut window's start holds even when the history would fit whole again (an output got shorter or
    // was trimmed): sending the older messages again would change the payload from its start. It lets
    // go once a cut would keep everything anyway.
    if (!cuts && !(stillThere && held!.index > startIndex)) return this.sendWhole(full);
    const select = (from: number, tokens: number): HistoryWindow =>
      selectHistoryWindow({ history, startIndex: from, budgetTokens: tokens, counter: this.options.counter, ledger: this.ledger, strategyId: this.options.owner.strategyId, heldCuts });
    // A head that gave way stays out while the window's start holds: bringing it back would change the payload's start.
    const out = this.heldHead;
    const head = out?.gaveWay && out.start === startIndex && held !== undefined && stillThere && held.index > startIndex && held.index >= full.fromIndex ? out : this.keptHead(history, startIndex, room, keepFirstShare);
    const tailRoom = room - head.tokens;
    // A cut would keep the whole history: there is nothing to hold.
    if (!cuts && full.tokens - head.tokens <= Math.floor(tailRoom * heldCuts.ratio)) return this.sendWhole(full);
    const fullTail = head.end > startIndex ? select(head.end, tailRoom) : full;
    if (held !== undefined && stillThere && held.index > head.end && held.index >= fullTail.fromIndex) {
      const window = select(held.index, tailRoom);
      const older = { action: 'dropped' as const, from: head.end, to: held.index, messages: held.index - head.end, tokensAfter: 0, reason: OLDER_THAN_WINDOW_REASON, recoverableFrom: 'history' as const };
      return withHead(history, startIndex, head, { ...window, reductions: [older, ...window.reductions], droppedMessages: window.droppedMessages + older.messages });
    }
    // Nothing has to go and the held start is not past the kept head: there is nothing to hold.
    if (!cuts) return this.sendWhole(full);
    let cut = select(head.end, Math.floor(tailRoom * heldCuts.ratio));
    if (covered !== undefined && cut.fromIndex > Math.max(covered, fullTail.fromIndex)) {
      // A memory block stands for older history: the cut drops no more than it covers or than must go.
      const limit = Math.max(covered, fullTail.fromIndex);
      cut = select(head.end, this.tokensBefore(history, history.length, limit, tailRoom));
    }
    if (cut.truncatedMessages > fullTail.truncatedMessages || cut.fromIndex >= history.length) cut = fullTail;
    const start = cut.fromIndex;
    this.heldStart = start < history.length ? { index: start, message: history[start]!, fingerprint: messageFingerprint(history[start]!) } : undefined;
    return withHead(history, startIndex, head, cut);
  }

  /** `full`, the whole history from the start, with no window start or head held any longer. */
  private sendWhole(full: HistoryWindow): HistoryWindow {
    this.heldStart = undefined;
    this.heldHead = undefined;
    return full;
  }

  /**
   * The conversation's first whole groups from `startIndex` kept before a cut window: up to `share`
   * of the room and of what the current turn leaves, before the newest user message, held from the
   * first cut on while its messages are the same and it still fits.
   */
  private keptHead(history: ReadonlyArray<ChatMessage>, startIndex: number, room: number, share: number): KeptHead {
    if (!(share > 0)) return (this.heldHead = { start: startIndex, end: startIndex, tokens: 0, user: -1, messages: [] });
    let newestUser = history.length;
    while (newestUser > startIndex && history[newestUser - 1]!.role !== 'user') newestUser--;
    // The head never takes room the current turn needs: it gives way to a turn that would not fit beside it.
    let turnTokens = 0;
    for (let index = Math.max(startIndex, newestUser - 1); index < history.length && turnTokens <= room; index++) turnTokens += this.ledger.tokensWithin(history, index, room - turnTokens + 1);
    const limit = Math.max(0, Math.min(Math.floor(room * share), room - turnTokens));
    const held = this.heldHead;
    if (held !== undefined && held.start === startIndex) {
      if (held.gaveWay && held.user === newestUser) return held;
      const same = !held.gaveWay && held.end <= history.length && held.messages.every((message, offset) => history[startIndex + offset] === message || messageFingerprint(history[startIndex + offset]!) === messageFingerprint(message));
      if (same && held.tokens <= limit) return (this.heldHead = { ...held, user: newestUser });
      // A head the turn outgrew gives way for the rest of that turn (shrinking it call by call would change the prefix each time).
      if (same && held.user === newestUser) return (this.heldHead = { start: startIndex, end: startIndex, tokens: 0, user: newestUser, messages: [], gaveWay: true });
    }
    let end = startIndex;
    let tokens = 0;
    while (end < newestUser - 1) {
      const group = groupAt(history, end);
      if ((group.kind !== 'tool-exchange' && group.kind !== 'user' && group.kind !== 'assistant') || group.end > newestUser - 1) break;
      let groupTokens = 0;
      for (let index = group.start; index < group.end && tokens + groupTokens <= limit; index++) groupTokens += this.ledger.tokensWithin(history, index, limit - tokens - groupTokens + 1);
      if (tokens + groupTokens > limit) break;
      tokens += groupTokens;
      end = group.end;
    }
    const head: KeptHead = { start: startIndex, end, tokens, user: newestUser, messages: history.slice(startIndex, end) };
    return (this.heldHead = head);
  }

  /**
   * Where `window` (placed after `lead` messages) continues the previous payload's window `sent`: both
   * are runs of the same history's own messages, and the history did not change there since.
   */
  private continuedWindow(sent: typeof this.previousWindow, history: ReadonlyArray<ChatMessage>, window: HistoryWindow, lead: number): Pick<PreviousPayload, 'window'> {
    if (sent === undefined || sent.history !== history || !window.verbatim) return {};
    const offset = window.fromIndex - sent.fromIndex;
    const end = Math.min(sent.fromIndex + sent.verbatim, sent.unchangedBefore);
    if (offset < 0 || window.fromIndex >= end) return {};
    return { window: { at: lead, from: sent.lead + offset, shared: Math.min(end - window.fromIndex, window.verbatim) } };
  }

  /** How many of `payload`'s leading messages are the same objects as the previous payload's (0 without one). */
  private repeatedMessages(payload: LLMPayload, window: HistoryWindow, history: ReadonlyArray<ChatMessage>): number {
    const previous = this.previousPayload?.messages;
    if (previous === undefined) return 0;
    const messages = payload.messages;
    const shared = Math.min(previous.length, messages.length);
    let index = 0;
    const sent = this.previousWindow;
    const lead = messages.length - window.messages.length;
    if (sent !== undefined && sent.history === history && sent.fromIndex === window.fromIndex && sent.lead === lead && window.verbatim !== undefined) {
      for (; index < lead; index++) if (previous[index] !== messages[index]) return index;
      // Both windows start with the history's own messages from the same index, and the history did
      // not change there since: those are the same objects in both payloads.
      index = lead + Math.max(0, Math.min(sent.verbatim, window.verbatim, sent.unchangedBefore - window.fromIndex));
    }
    for (; index < shared; index++) if (previous[index] !== messages[index]) return index;
    return shared;
  }

  /**
   * Tokens of `payload` that repeat the previous payload's start: the tools when they are the same,
   * then its `index` leading messages that are the same objects (the composer reuses its system and
   * memory messages and the caller's history messages, so an unchanged message is the same object).
   * Counted as the payload's tokens less the differing rest, so a turn that only appends counts only
   * what it appended. When the shared start is the shorter part and every message's tokens are its
   * own count (`countedWhole`: no truncated copy counted by its cut), the rest is the payload's
   * message tokens less the shared start, so a window that slid costs its few leading messages, not
   * the window.
   */
  private repeatedPrefixTokens(payload: LLMPayload, index: number, requested: ReadonlyArray<ToolDefinition>, countedWhole: boolean): number {
    const previous = this.previousPayload;
    if (previous === undefined) return 0;
    const { counter } = this.options;
    const sameTools = previous.requested === requested || JSON.stringify(previous.tools) === JSON.stringify(payload.tools);
    if (!sameTools) return 0;
    const { messages, stats } = payload;
    let differing: number;
    if (countedWhole && index < messages.length - index) {
      // Every section is counted message by message (`countMessages` sums `countMessage`), so the
      // messages' tokens are the payload's tokens less its tools'.
      let head = 0;
      for (let position = 0; position < index; position++) head += counter.countMessage(messages[position]!);
      differing = stats.output_tokens - stats.sections.tools - head;
    } else {
      differing = counter.countMessages(messages.slice(index));
    }
    return Math.max(0, stats.output_tokens - differing);
  }

  /**
   * `blocks` with the held block in place of each one whose content changed since the previous
   * payload and that may stand for it (`MemoryBlock.holds`); undefined when no block is held. A held block is valid only
   * while the history still holds what it covered (its last covered message is the same).
   */
  private heldMemoryFor(blocks: ReadonlyArray<MemoryBlock>, history: ReadonlyArray<ChatMessage>): MemoryBlock[] | undefined {
    if (this.heldMemory.size === 0) return undefined;
    let holds = false;
    const candidates = blocks.map((block) => {
      const held = block.holds !== undefined && block.covers !== undefined ? this.heldMemory.get(block.name) : undefined;
      if (held === undefined || held.block.content === block.content || !block.holds!(held.block)) return block;
      const until = held.block.covers?.until ?? 0;
      if (until > history.length || (until > 0 && messageFingerprint(history[until - 1]!) !== held.anchor)) return block;
      holds = true;
      return held.block;
    });
    return holds ? candidates : undefined;
  }

  /** Remembers the shortened form of each block `fitted` sent shortened; forgets the others. */
  private rememberForms(fitted: ReadonlyArray<FittedMemoryBlock>): void {
    this.heldForms.clear();
    for (const { block, outcome, message, tokens, fullTokens } of fitted) {
      if (outcome === 'shortened' && message !== undefined) this.heldForms.set(block.name, { content: block.content, message, tokens, fullTokens });
    }
  }

  /** Remembers the sent blocks that may be held (see `MemoryBlock.holds`); forgets the others. */
  private rememberMemory(fitted: ReadonlyArray<FittedMemoryBlock>, history: ReadonlyArray<ChatMessage>): void {
    for (const { block, message } of fitted) {
      const until = block.covers?.until ?? 0;
      if (message === undefined || block.holds === undefined || block.covers === undefined || until > history.length) {
        this.heldMemory.delete(block.name);
        continue;
      }
      const previous = this.heldMemory.get(block.name);
      if (previous?.block === block) continue;
      this.heldMemory.set(block.name, { block, anchor: until > 0 ? messageFingerprint(history[until - 1]!) : undefined });
    }
  }

  /**
   * Makes a probe (`ComposeRequest.probe`) the payload this conversation sent: the next compose
   * builds on it (its held window start, output cuts and memory blocks; `repeatedPrefixTokens`), and
   * every other probe of the call is forgotten. Emit its events with {@link emitComposed}.
   */
  adopt(composed: ComposedPayload): void {
    const remember = this.probes.get(composed.payload);
    this.probes = new WeakMap();
    remember?.();
  }

  /** The held output cuts for a compose at `ratio` (none held yet, or held at another ratio: an empty hold). */
  private heldCutsAt(ratio: number): HeldOutputCuts {
    const held = this.heldCuts;
    return held !== undefined && held.ratio === ratio ? held : new HeldOutputCuts(ratio, NO_CUTS);
  }

  /** The event fields of this composer's owner at `turn`. */
  eventBase(turn: number): CtxkitEventBase {
    const { agentId, sessionId, strategyId } = this.options.owner;
    return { agentId, sessionId, strategyId, turn };
  }

  /**
   * Fits each block into what is left of `allowance`. With `holdForms`, a block shortened in the
   * previous payload is sent in that form again while its content is the same and the form fits.
   */
  private fitBlocks(blocks: ReadonlyArray<MemoryBlock>, redundant: ReadonlySet<MemoryBlock>, allowance: number, holdForms: boolean): FittedMemoryBlock[] {
    let left = Math.max(0, allowance);
    return blocks.map((block) => {
      if (redundant.has(block)) return { block, outcome: 'redundant', message: undefined, tokens: 0, fullTokens: 0 };
      const form = holdForms ? this.heldForms.get(block.name) : undefined;
      if (form !== undefined && form.content === block.content && form.tokens <= left) {
        left -= form.tokens;
        return { block, outcome: 'shortened', message: form.message, tokens: form.tokens, fullTokens: form.fullTokens };
      }
      const fitted = fitMemoryBlock(block, left, this.options.counter, this.memoryMessages);
      left -= fitted.tokens;
      return fitted;
    });
  }

  private blockReductions(fitted: FittedMemoryBlock[], at: number): ReductionRecord[] {
    const records: ReductionRecord[] = [];
    for (const { block, outcome, tokens, fullTokens } of fitted) {
      if (outcome === 'shortened') {
        records.push({ action: 'truncated', from: at, to: at, messages: 0, tokensBefore: fullTokens, tokensAfter: tokens, reason: `${block.name} block shortened to its share of the budget`, recoverableFrom: 'history' });
      } else if (outcome === 'left-out') {
        records.push({ action: 'dropped', from: at, to: at, messages: 0, tokensBefore: fullTokens, tokensAfter: 0, reason: `${block.name} block left out: no room beside the newest user message`, recoverableFrom: 'history' });
      }
    }
    return records;
  }

  /**
   * Emits the events of a composed payload (for strategies that compose with `emitEvents: false` and
   * decide later): each of its dropped and cut records in one `history-trim` or `tool-output-trim`
   * (memory blocks and the RAG context included), `usage-level-change` when the level changed (unless
   * the session's host emits it: `CtxkitEventBus.hostedUsageLevels`), and `payload-composed`.
   */
  emitComposed(payload: LLMPayload, turn: number): void {
    const { events, sessionId } = this.options.owner;
    const base = this.eventBase(turn);
    emitReductions(events, base, payload.stats.reductions);
    if (payload.stats.usageLevel !== this.level) {
      if (!events.hostedUsageLevels?.has(sessionId)) {
        safeEmit(events, 'usage-level-change', { ...base, from: this.level, to: payload.stats.usageLevel, used: payload.stats.output_tokens, contextWindow: payload.stats.budget.maxContextTokens });
      }
      this.level = payload.stats.usageLevel;
    }
    safeEmit(events, 'payload-composed', { ...base, stats: payload.stats });
  }

  /** Tokens of `history[from, end)` counted back from `end`, stopping once they pass `limit`. */
  private tokensBefore(history: ReadonlyArray<ChatMessage>, end: number, from: number, limit: number): number {
    let tokens = 0;
    for (let index = end - 1; index >= from && tokens <= limit; index--) tokens += this.ledger.tokensWithin(history, index, limit - tokens + 1);
    return Math.min(tokens, limit);
  }

  /**
   * The history check `compose` makes, so that every strategy refuses the same malformed histories:
   * the messages new since the previous check (all of them when the history is not the previously
   * checked one grown) are checked. A strategy that must check before composing (it extracts or
   * folds first) calls this instead of a full check, and `compose` then has nothing left to check.
   * @throws HistoryValidationError (`CTXKIT_HISTORY_INVALID`)
   */
  checkHistoryShape(history: ReadonlyArray<unknown>): void {
    const checked = this.checked;
    const grown = Array.isArray(history) && checked !== undefined && checked.length > 0 && history.length >= checked.length && history[0] === checked.first && history[checked.length - 1] === checked.last;
    this.checked = undefined;
    assertHistoryShape(history, grown ? checked.length : 0);
    this.checked = { first: history[0], last: history[history.length - 1], length: history.length };
  }

  /** Tokens of the newest user message at or after `startIndex` (up to `limit`), 0 when there is none. */
  private newestUserTokens(history: ReadonlyArray<ChatMessage>, startIndex: number, limit: number): number {
    for (let index = history.length - 1; index >= startIndex; index--) {
      if (history[index]!.role === 'user') return Math.min(limit, this.ledger.tokensWithin(history, index, limit));
    }
    return 0;
  }

  /** One message object per distinct text, so that counts are cached by identity across turns. */
  private systemMessage(content: string): SystemMessage {
    let message = this.systemMessages.get(content);
    if (message === undefined) {
      if (this.systemMessages.size > 16) this.systemMessages.clear();
      message = { role: 'system', content };
      this.systemMessages.set(content, message);
    }
    return message;
  }
}
