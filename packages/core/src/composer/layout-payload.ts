import type { ChatMessage, SystemMessage, UserMessage } from '../contracts/chat-message';
import type { ComposeOptions } from '../contracts/context-manager';
import type { LLMPayload, PayloadBudget, ReductionCause, ReductionRecord } from '../contracts/llm-payload';
import type { ToolDefinition } from '../contracts/tool-definition';
import { BudgetExceededError } from '../errors/budget-exceeded-error';
import { buildPayload } from '../ledger/build-payload';
import { HeldOutputCuts, type OutputCut } from '../ledger/held-output-cuts';
import { type HistoryLedger, messageFingerprint } from '../ledger/history-ledger';
import { type HistoryWindow, OLDER_THAN_WINDOW_REASON, selectHistoryWindow } from '../ledger/select-history-window';
import { groupAt } from '../messages/group-tool-calls';
import { newestUserIndex } from '../messages/newest-user-index';
import type { ITokenCounter } from '../token-counting/token-counter';
import { fitDynamicContext, type FittedDynamicContext } from './fit-dynamic-context';
import { fitMemoryBlock, type FittedMemoryBlock } from './fit-memory-block';
import { type HistoryRange, keptHistoryRanges } from './kept-history';
import type { HeldForm, KeptHead, LayoutHold } from './layout-hold';
import {
  headEnd,
  hidesFrom,
  type Lightened,
  lightenOldestFirst,
  type LightenOptions,
  type LighterForm,
  type LighterForms,
  withForms,
} from './lighter-forms';
import type { MemoryBlock, MemoryBlockOutcome } from './memory-block';
import { DEFAULT_MEMORY_SHARE, memoryAllowance } from './memory-share';
import { relabelCoveredDrops } from './relabel-covered-drops';
import { collapsedInWindow, collapsedRecord, type ToolResultCollapser } from './tool-result-collapser';

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
   * The strategy's reductions of history messages it sends in another form (a placeholder, a cut, an
   * in-context view), for the history the payload keeps: called once the window is chosen with the kept
   * ranges in order (the head kept in front of a cut window, the window, less what the window drops),
   * so that a message the payload leaves out is reported as dropped only, never also as sent reduced.
   * What it returns is added to the stats with `reductions`. `lightened`: the lighter forms the layout
   * used (see `lighter`), for the strategy to report as its own reductions.
   */
  keptReductions?: (
    kept: ReadonlyArray<HistoryRange>,
    lightened: ReadonlyArray<LighterForm>,
  ) => ReadonlyArray<ReductionRecord>;
  /**
   * Lighter forms of older messages, used oldest first and only as needed when the history from its
   * start does not fit the room left after memory (see {@link LighterForms}).
   */
  lighter?: LighterForms;
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
  /** Turn number for events. */
  turn: number;
}

/** The payload sent before a composed one, and how many of its leading messages the new one repeats. */
export interface PreviousPayload {
  messages: ReadonlyArray<ChatMessage>;
  repeated: number;
}

/** A layout: the payload of one request on one hold, and the hold that sending it leaves. */
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
   * The payload this conversation sent before (the hold's) and how this one repeats it: `messages`
   * is the composer's own copy of its messages (never changed), `repeated` how many of this payload's
   * leading messages are the same objects as its. Undefined for the first payload.
   */
  previous?: PreviousPayload;
  /** The hold once this payload is sent (what the composer's owner commits). */
  nextHold: LayoutHold;
  /** What the request's lighter forms did (with `lighter`). */
  lightened?: Lightened;
}

/** What a layout works with besides the request and the hold: the conversation's caches and the budget. */
export interface LayoutEnvironment {
  strategyId: string;
  /** Model named in stats. */
  model: string;
  counter: ITokenCounter;
  ledger: HistoryLedger;
  budget: PayloadBudget;
  /** One message object per distinct text, so that counts are cached by identity across turns. */
  systemMessage(content: string): SystemMessage;
  /** Memory blocks' message objects by text (the same object while the text is the same). */
  memoryMessages: Map<string, SystemMessage | UserMessage>;
  collapser: ToolResultCollapser;
}

const NO_MEMORY: ReadonlyArray<MemoryBlock> = [];
/** History left out for its age, which a memory block covering it may stand for. */
const OLDER: ReadonlySet<ReductionCause> = new Set(['older-than-window', 'before-start']);
const NO_CUTS: ReadonlyMap<ChatMessage, OutputCut> = new Map();

/** Where a window placement leaves the held start and head. */
interface Placed {
  fitted: FittedMemoryBlock[];
  window: HistoryWindow;
  start: LayoutHold['start'];
  head: KeptHead | undefined;
}

/** `window` with the kept head in front of it (the window as it is when the head is empty). */
function withHead(
  history: ReadonlyArray<ChatMessage>,
  startIndex: number,
  head: KeptHead,
  window: HistoryWindow,
): HistoryWindow {
  if (head.end <= startIndex) return window;
  return {
    ...window,
    messages: [...history.slice(startIndex, head.end), ...window.messages],
    fromIndex: startIndex,
    tokens: head.tokens + window.tokens,
  };
}

/** How far the memory blocks with content stand for the history (`covers.until`), undefined without such a block. */
function coveredUntil(blocks: ReadonlyArray<MemoryBlock>): number | undefined {
  let until: number | undefined;
  for (const block of blocks)
    if (block.covers !== undefined && block.content.length > 0) until = Math.max(until ?? 0, block.covers.until);
  return until;
}

/** Whether `window` drops history older than itself (a cut). */
function cutsOlder(window: HistoryWindow): boolean {
  return window.reductions.some((record) => record.cause === 'older-than-window');
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
function heldMemoryStillCovered(
  window: HistoryWindow,
  startIndex: number,
  candidates: ReadonlyArray<MemoryBlock>,
  blocks: ReadonlyArray<MemoryBlock>,
): boolean {
  return candidates.every((block, index) => {
    const current = blocks[index]!;
    if (block === current) return true;
    const from = block.covers?.until ?? 0;
    const to = Math.max(from, current.covers?.until ?? 0);
    return (
      startIndex <= from &&
      window.reductions.every(
        (record) => record.messages === 0 || record.action === 'truncated' || record.to <= from || record.from >= to,
      )
    );
  });
}

/**
 * Lays out one payload: a pure function of the request, the hold of the payload sent before and the
 * conversation's caches (`env`). In priority order it places the system prompt and tool definitions
 * (never cut; a typed error when they alone exceed the budget), the dynamic context (cut before it
 * takes the newest user message's room), the strategy's memory blocks (up to their share of the
 * room, shortened or left out before the newest user message would lose its room), and fills
 * everything left with the newest history, by whole tool-call groups. Memory never leaves budget
 * unused: when the history fits whole beside it the blocks may take what is left, and a block that
 * only repeats what the window holds is left out. With `cutBackRatio` below 1 the window's start,
 * the kept head, the current turn's output cuts and shortened memory forms are read from `hold` and
 * returned as `nextHold`. Every reduction is reported in `stats` (history indexes).
 * @throws BudgetExceededError (`CTXKIT_BUDGET_EXCEEDED`) when system prompt + tools exceed the budget, or not even the
 *   truncated newest user message fits
 */
export function layoutPayload(request: ComposeRequest, hold: LayoutHold, env: LayoutEnvironment): ComposedPayload {
  const { lighter } = request;
  return build(
    request,
    hold,
    env,
    lighter ? lightenToFit(request, hold, env, lighter) : arrange(request, hold, env, request.history, request.tools),
  );
}

/** The room the system prompt, tools and dynamic context leave a request's history and memory. */
interface Roomed {
  /** The history laid out (the request's, or it with lighter forms). */
  original: ReadonlyArray<ChatMessage>;
  startIndex: number;
  tools: ReadonlyArray<ToolDefinition>;
  system: SystemMessage[];
  systemTokens: number;
  toolTokens: number;
  collapsed: ReturnType<ToolResultCollapser['view']> | undefined;
  /** `original`, collapsed in mode A. */
  history: ReadonlyArray<ChatMessage>;
  room: number;
  dynamic: FittedDynamicContext;
  blocks: ReadonlyArray<MemoryBlock>;
  heldCuts: HeldOutputCuts | undefined;
  /** Tokens of the newest user message (up to the room). */
  userTokens: number;
}

/** A request's history placed in the room beside the system prompt, tools, dynamic context and memory. */
interface Arranged extends Roomed {
  placed: Placed;
  lightened?: Lightened;
}

/** Places `original` (the request's history or it lightened) with `tools`: everything a payload is built from. */
function arrange(
  request: ComposeRequest,
  hold: LayoutHold,
  env: LayoutEnvironment,
  original: ReadonlyArray<ChatMessage>,
  tools: ReadonlyArray<ToolDefinition>,
): Arranged {
  const roomed = arrangeRoom(request, hold, env, original, tools);
  return { ...roomed, placed: placeIn(request, hold, env, roomed) };
}

/** The room `tools` and the request's system prompt and dynamic context leave `original`, not yet placed. */
function arrangeRoom(
  request: ComposeRequest,
  hold: LayoutHold,
  env: LayoutEnvironment,
  original: ReadonlyArray<ChatMessage>,
  tools: ReadonlyArray<ToolDefinition>,
): Roomed {
  const { counter, ledger, budget, strategyId } = env;
  const n = original.length;
  const startIndex = Math.min(n, Math.max(0, Math.floor(request.startIndex ?? 0)));

  const system = [env.systemMessage(request.systemPrompt)];
  const systemTokens = counter.countMessages(system);
  const toolTokens = counter.countTools(tools);
  if (systemTokens + toolTokens > budget.available) {
    throw new BudgetExceededError(strategyId, {
      available: budget.available,
      required: systemTokens + toolTokens,
      sections: { system: systemTokens, tools: toolTokens },
    });
  }

  const collapsed = request.collapseOlderToolResults ? env.collapser.view(original) : undefined;
  const history: ReadonlyArray<ChatMessage> = collapsed ? collapsed.history : original;
  ledger.sync(history);
  let room = budget.available - systemTokens - toolTokens;
  const userTokens = newestUserTokens(ledger, history, startIndex, room);
  const dynamic = fitDynamicContext(request.ragContext, room, userTokens, n, counter, env.systemMessage);
  room -= dynamic.tokens;

  const blocks = request.memory ?? NO_MEMORY;
  const cutBackRatio = request.cutBackRatio ?? 1;
  const heldCuts =
    cutBackRatio < 1
      ? hold.cuts !== undefined && hold.cuts.ratio === cutBackRatio
        ? hold.cuts
        : new HeldOutputCuts(cutBackRatio, NO_CUTS)
      : undefined;
  return {
    original,
    startIndex,
    tools,
    system,
    systemTokens,
    toolTokens,
    collapsed,
    history,
    room,
    dynamic,
    blocks,
    heldCuts,
    userTokens,
  };
}

/** Where the window and the memory blocks go in the room. */
function placeIn(request: ComposeRequest, hold: LayoutHold, env: LayoutEnvironment, roomed: Roomed): Placed {
  const { counter, ledger, strategyId } = env;
  const { startIndex, history, room, blocks, heldCuts, userTokens, collapsed } = roomed;
  const selectWindow = (tokens: number): HistoryWindow =>
    selectHistoryWindow({ history, startIndex, budgetTokens: tokens, counter, ledger, strategyId, heldCuts });
  const keepsAll = (window: HistoryWindow): boolean => startIndex === 0 && window.fromIndex <= 0 && !cutsOlder(window);
  const windowHold = new WindowHold(env, history, startIndex);

  const place = (candidates: ReadonlyArray<MemoryBlock>, holdForms: boolean): Placed => {
    // Blocks that only repeat history are not needed when the whole history fits the room.
    let redundant = new Set<MemoryBlock>();
    let allowance = Math.min(
      memoryAllowance(room, request.memoryShare ?? DEFAULT_MEMORY_SHARE),
      Math.max(0, room - userTokens),
    );
    if (candidates.some((block) => block.omitWhenWindowCovers)) {
      const full = selectWindow(room);
      if (keepsAll(full)) redundant = new Set(candidates.filter((block) => block.omitWhenWindowCovers));
      // A block that only stands for older history never displaces more of the newest history than
      // the history it stands for: its allowance is at most what the full window leaves out.
      else if (candidates.every((block) => block.omitWhenWindowCovers))
        allowance = Math.min(allowance, tokensBefore(ledger, history, full.fromIndex, startIndex, allowance));
    }
    const forms = holdForms ? hold.forms : undefined;
    let fitted = fitBlocks(env, candidates, redundant, allowance, forms);
    const historyRoom = room - fitted.reduce((sum, block) => sum + block.tokens, 0);
    let window = selectWindow(historyRoom);
    let start = hold.start;
    let head = hold.head;
    if (heldCuts)
      ({ window, start, head } = windowHold.holdWindowStart(
        hold,
        historyRoom,
        heldCuts,
        request.keepFirstShare ?? 0,
        window,
        coveredUntil(candidates),
      ));
    if (fitted.some((block) => block.outcome === 'shortened' || block.outcome === 'left-out') && keepsAll(window)) {
      // The history fits whole beside a shortened block: the block may take what is left.
      fitted = fitBlocks(env, candidates, redundant, room - window.tokens, forms);
    }
    return { fitted, window, start, head };
  };
  // A block shortened in the previous payload keeps that form while the window is not cut (a larger
  // form would change the payload's start); a cut fits every block afresh.
  const placeHolding = (candidates: ReadonlyArray<MemoryBlock>): Placed => {
    const holding = heldCuts !== undefined && hold.forms.size > 0 ? place(candidates, true) : undefined;
    if (holding !== undefined && holding.start === hold.start) return holding;
    return place(candidates, false);
  };
  const heldBlocks = heldCuts && !collapsed ? heldMemoryFor(hold, blocks, history) : undefined;
  let placed = heldBlocks ? placeHolding(heldBlocks) : undefined;
  // The window was cut past what a held block covers: every block is sent as it is now.
  if (placed === undefined || !heldMemoryStillCovered(placed.window, startIndex, heldBlocks!, blocks))
    placed = placeHolding(blocks);
  return placed;
}

/**
 * The request's history with as many lighter forms as it needs to fit (see {@link LighterForms}):
 * nothing while the history from its start fits whole beside memory; else the forms, oldest first
 * ({@link lightenOldestFirst}), with the current turn, the kept head (`keepFirstShare`) and the forms
 * the payload sent before used (held while the cut back holds) as that function takes them. The expand
 * tools are offered while the payload hides a message behind a ref, and only when they take at most their
 * share of the room.
 */
function lightenToFit(
  request: ComposeRequest,
  hold: LayoutHold,
  env: LayoutEnvironment,
  lighter: LighterForms,
): Arranged {
  const expand = lighter.expandTools;
  const toolsOf = (offered: boolean) => (offered ? expand!.offering : request.tools);
  // Every form is used and nothing else depends on the placing: the history as it stands is not placed at all.
  const placeFirst = !lighter.all || (request.memory?.length ?? 0) > 0;
  const first = (tools: ReadonlyArray<ToolDefinition>) =>
    placeFirst
      ? arrange(request, hold, env, request.history, tools)
      : arrangeRoom(request, hold, env, request.history, tools);
  let offer = expand?.fromStart === true;
  let arranged: Roomed | Arranged = first(toolsOf(offer));
  // The room without the expand tools decides whether they are worth their tokens at all.
  const affordable =
    expand !== undefined && expand.tokens <= (arranged.room + (offer ? expand.tokens : 0)) * expand.maxRoomShare;
  if (offer && !affordable) {
    offer = false;
    arranged = first(toolsOf(false));
  }
  const pressure = !isPlaced(arranged) || underPressure(arranged.placed);
  let forms: ReadonlyArray<LighterForm> = [];
  let history = request.history;
  if (pressure) {
    const tokensAt = (index: number) => env.ledger.tokensAt(request.history, index);
    const memoryTokens = isPlaced(arranged) ? arranged.placed.fitted.reduce((sum, block) => sum + block.tokens, 0) : 0;
    const targetTokens = arranged.room - memoryTokens - (affordable && !offer ? expand!.tokens : 0);
    const cutBack = (request.cutBackRatio ?? 1) < 1;
    const keepFirstShare = request.keepFirstShare ?? 0;
    const options: LightenOptions = { targetTokens, named: affordable, tokensAt };
    if (cutBack) options.cutBackTokens = Math.floor(targetTokens * request.cutBackRatio!);
    if (cutBack && keepFirstShare > 0) {
      const end = Math.min(lighter.protectFrom, history.length);
      options.keptHeadEnd = headEnd(arranged.startIndex, end, Math.floor(targetTokens * keepFirstShare), tokensAt);
    }
    const held = hold.lightened;
    if (cutBack && held !== undefined && history[held.through - 1] === held.message) options.holdThrough = held.through;
    forms = lighter.all ? lighter.everyForm(history, affordable) : lightenOldestFirst(history, lighter, options);
    if (forms.length > 0) {
      history = withForms(history, forms);
      offer = affordable && (offer || hidesFrom(history, lighter.from, expand!.hides));
      arranged = arrange(request, hold, env, history, toolsOf(offer));
    }
  }
  let placed: Arranged = isPlaced(arranged) ? arranged : arrange(request, hold, env, history, toolsOf(offer));
  // The window cut a message of the current turn that names a ref: the ref is worth expanding.
  if (!offer && affordable && hidesFrom(placed.placed.window.messages, 0, expand!.hides)) {
    offer = true;
    placed = arrange(request, hold, env, history, toolsOf(true));
  }
  return { ...placed, lightened: { history, forms, pressure, toolsOffered: offer } };
}

function isPlaced(arranged: Roomed | Arranged): arranged is Arranged {
  return 'placed' in arranged;
}

/**
 * True when the history could not be placed whole: the window left out older history or cut the current
 * turn, or a memory block was shortened or left out to make room.
 */
function underPressure(placed: Placed): boolean {
  const cut = placed.window.reductions.some(
    (record) => record.action === 'truncated' || record.cause === 'older-than-window',
  );
  return cut || placed.fitted.some((block) => block.outcome === 'shortened' || block.outcome === 'left-out');
}

/** The payload of an arranged request, and the hold sending it leaves. */
function build(request: ComposeRequest, hold: LayoutHold, env: LayoutEnvironment, arranged: Arranged): ComposedPayload {
  const { counter, ledger, budget, strategyId } = env;
  const { original, startIndex, system, systemTokens, toolTokens, collapsed, history, room, dynamic, blocks } =
    arranged;
  const { heldCuts, placed, lightened } = arranged;
  const n = original.length;
  const cutBackRatio = request.cutBackRatio ?? 1;
  const { fitted, window } = placed;
  const heldMemory = fitted
    .filter((block, index) => block.message !== undefined && block.block !== blocks[index])
    .map((block) => block.block.name);
  const windowRecords: ReductionRecord[] = [];
  if (startIndex > 0) {
    const reason = request.startReason ?? 'before the part of the history this strategy sends verbatim';
    windowRecords.push({
      action: 'dropped',
      from: 0,
      to: startIndex,
      messages: startIndex,
      tokensAfter: 0,
      reason,
      recoverableFrom: 'history',
      cause: 'before-start',
    });
  }
  windowRecords.push(...window.reductions);
  const kept = request.keptReductions || collapsed ? keptHistoryRanges(windowRecords, n) : [];
  const reductions: ReductionRecord[] = [
    ...(request.reductions ?? []),
    ...(request.keptReductions ? request.keptReductions(kept, lightened?.forms ?? []) : []),
    ...dynamic.reductions,
    ...blockReductions(fitted, n),
  ];
  if (collapsed) {
    for (const index of collapsedInWindow(collapsed.collapsedAt, history, window.messages, kept))
      reductions.push(collapsedRecord(index));
  }
  const sent = fitted.filter((block) => block.message !== undefined).map((block) => block.block);
  const relabeled = relabelCoveredDrops(windowRecords, OLDER, sent);

  // System-role blocks come before every user-role one (a summary, a state, recalled turns): the
  // conversation starts after the last system message, so the dynamic context (a system message)
  // comes before a user-role block even when the block is placed right after the system prompt.
  // User-role blocks keep their placements' order, then the history follows them.
  const sentMessages = (placement: (block: MemoryBlock) => boolean, role: 'system' | 'user') =>
    fitted
      .filter((block) => block.message !== undefined && block.message.role === role && placement(block.block))
      .map((block) => block.message!);
  // A block placed before the newest user message goes inside the window, unless that message opens it.
  const newestUserAt = newestUserIndex(window.messages);
  const inWindow = (block: MemoryBlock) => block.placement === 'before-newest-user' && newestUserAt > 0;
  const afterSystem = (block: MemoryBlock) => block.placement === 'after-system';
  const beforeHistory = (block: MemoryBlock) => block.placement !== 'after-system' && !inWindow(block);
  const leading = sentMessages(afterSystem, 'system');
  const trailing = [
    ...sentMessages((block) => block.placement !== 'after-system', 'system'),
    ...sentMessages(afterSystem, 'user'),
    ...sentMessages(beforeHistory, 'user'),
  ];
  const beforeQuestion = sentMessages(inWindow, 'user');
  const historyMessages =
    beforeQuestion.length > 0
      ? [...window.messages.slice(0, newestUserAt), ...beforeQuestion, ...window.messages.slice(newestUserAt)]
      : window.messages;
  const payload = buildPayload({
    strategyId,
    model: env.model,
    counter,
    budget,
    sections: {
      system,
      tools: arranged.tools as ToolDefinition[],
      dynamic: dynamic.messages,
      leadingMemory: leading,
      memory: trailing,
      history: { ...window, messages: historyMessages, reductions: relabeled },
    },
    historyLength: n,
    historyInputTokens: collapsed ? () => counter.countMessages(original) : () => ledger.totalTokens(history),
    otherInputTokens:
      systemTokens + toolTokens + dynamic.inputTokens + fitted.reduce((sum, block) => sum + block.fullTokens, 0),
    // Each block was counted (or gave its exact count) when it was fitted.
    memoryTokens: fitted.reduce((sum, block) => sum + block.tokens, 0),
    reductions,
    ...(request.extra || heldMemory.length > 0 ? { extra: request.extra ?? {} } : {}),
  });
  // The strategy's own `extra` object is the payload's (a strategy may fill it in after composing).
  if (heldMemory.length > 0) payload.stats.extra!.heldMemory = heldMemory;
  const repeated = repeatedMessages(hold, payload);
  payload.stats.repeatedPrefixTokens = repeatedPrefixTokens(
    counter,
    hold,
    payload,
    repeated,
    arranged.tools,
    window.truncatedMessages === 0,
    new Map(fitted.flatMap((block) => (block.message ? [[block.message, block.tokens] as const] : []))),
  );
  const through = lightened && cutBackRatio < 1 ? lightenedThrough(lightened, request.lighter!) : 0;
  const nextHold: LayoutHold = {
    ...(placed.start !== undefined ? { start: placed.start } : {}),
    ...(placed.head !== undefined ? { head: placed.head } : {}),
    ...(heldCuts ? { cuts: new HeldOutputCuts(cutBackRatio, window.outputCuts ?? NO_CUTS) } : {}),
    ...(through > 0 ? { lightened: { through, message: request.history[through - 1]! } } : {}),
    memory: heldCuts ? nextHeldMemory(hold, fitted, history) : new Map(),
    forms: nextForms(heldCuts ? fitted : []),
    sent: {
      messages: payload.messages.slice(),
      tools: payload.tools,
      requested: arranged.tools,
      level: payload.stats.usageLevel,
    },
  };
  return {
    payload,
    window,
    memory: fitted.map((block) => block.outcome),
    roomTokens: room,
    memoryAllowanceTokens: memoryAllowance(room, request.memoryShare ?? DEFAULT_MEMORY_SHARE),
    ...(hold.sent
      ? {
          previous: { messages: hold.sent.messages, repeated },
        }
      : {}),
    nextHold,
    ...(lightened ? { lightened } : {}),
  };
}

/** One past the newest message lightened (every one before the current turn when all were), 0 when none was. */
function lightenedThrough(lightened: Lightened, lighter: LighterForms): number {
  const { forms } = lightened;
  if (forms.length === 0) return 0;
  return lighter.all ? lighter.protectFrom : forms[forms.length - 1]!.index + 1;
}

/** The window's held start and the kept head in front of a cut window (see `cutBackRatio`, `keepFirstShare`). */
class WindowHold {
  constructor(
    private readonly env: LayoutEnvironment,
    private readonly history: ReadonlyArray<ChatMessage>,
    private readonly startIndex: number,
  ) {}

  private select(from: number, tokens: number, heldCuts: HeldOutputCuts): HistoryWindow {
    const { counter, ledger, strategyId } = this.env;
    return selectHistoryWindow({
      history: this.history,
      startIndex: from,
      budgetTokens: tokens,
      counter,
      ledger,
      strategyId,
      heldCuts,
    });
  }

  /**
   * The window with a held start: while the history from the start of the last cut still fits, the
   * window keeps that start (older history reported as dropped), so consecutive payloads share their
   * beginning, even when the whole history would fit again, until a cut would keep all of it; when it
   * no longer fits, the window is cut back to `ratio` of the room (never truncating more of the
   * current turn than the full window would, and dropping no more history than a memory block covers
   * or than must go) and its start is held from there. With `keepFirstShare`, the conversation's first
   * whole groups (up to that share of the room, never the current turn) are kept before the window and
   * held too, so a cut leaves them in the cached prefix; a head that gave way to a turn comes back at
   * the next cut. Returns the window and the start and head to hold (none: the whole history is sent).
   */
  holdWindowStart(
    hold: LayoutHold,
    room: number,
    heldCuts: HeldOutputCuts,
    keepFirstShare: number,
    full: HistoryWindow,
    covered: number | undefined,
  ): Pick<Placed, 'window' | 'start' | 'head'> {
    const { history, startIndex } = this;
    const whole = { window: full, start: undefined, head: undefined };
    const held = hold.start;
    const stillThere =
      held !== undefined &&
      held.index < history.length &&
      (history[held.index] === held.message || messageFingerprint(history[held.index]!) === held.fingerprint);
    const cuts = cutsOlder(full);
    // A cut window's start holds even when the history would fit whole again (an output got shorter or
    // was trimmed): sending the older messages again would change the payload from its start. It lets
    // go once a cut would keep everything anyway.
    if (!cuts && !(stillThere && held!.index > startIndex)) return whole;
    // A head that gave way stays out while the window's start holds: bringing it back would change the payload's start.
    const out = hold.head;
    const head =
      out?.gaveWay &&
      out.start === startIndex &&
      held !== undefined &&
      stillThere &&
      held.index > startIndex &&
      held.index >= full.fromIndex
        ? out
        : this.keptHead(out, room, keepFirstShare);
    const tailRoom = room - head.tokens;
    // A cut would keep the whole history: there is nothing to hold.
    if (!cuts && full.tokens - head.tokens <= Math.floor(tailRoom * heldCuts.ratio)) return whole;
    const fullTail = head.end > startIndex ? this.select(head.end, tailRoom, heldCuts) : full;
    if (held !== undefined && stillThere && held.index > head.end && held.index >= fullTail.fromIndex) {
      const window = this.select(held.index, tailRoom, heldCuts);
      const older: ReductionRecord = {
        action: 'dropped',
        from: head.end,
        to: held.index,
        messages: held.index - head.end,
        tokensAfter: 0,
        reason: OLDER_THAN_WINDOW_REASON,
        recoverableFrom: 'history',
        cause: 'older-than-window',
      };
      return {
        window: withHead(history, startIndex, head, {
          ...window,
          reductions: [older, ...window.reductions],
          droppedMessages: window.droppedMessages + older.messages,
        }),
        start: held,
        head,
      };
    }
    // Nothing has to go and the held start is not past the kept head: there is nothing to hold.
    if (!cuts) return whole;
    let cut = this.select(head.end, Math.floor(tailRoom * heldCuts.ratio), heldCuts);
    if (covered !== undefined && cut.fromIndex > Math.max(covered, fullTail.fromIndex)) {
      // A memory block stands for older history: the cut drops no more than it covers or than must go.
      const limit = Math.max(covered, fullTail.fromIndex);
      cut = this.select(head.end, tokensBefore(this.env.ledger, history, history.length, limit, tailRoom), heldCuts);
    }
    if (cut.truncatedMessages > fullTail.truncatedMessages || cut.fromIndex >= history.length) cut = fullTail;
    const start = cut.fromIndex;
    return {
      window: withHead(history, startIndex, head, cut),
      start:
        start < history.length
          ? { index: start, message: history[start]!, fingerprint: messageFingerprint(history[start]!) }
          : undefined,
      head,
    };
  }

  /**
   * The conversation's first whole groups from `startIndex` kept before a cut window: up to `share`
   * of the room and of what the current turn leaves, before the newest user message, held from the
   * first cut on while its messages are the same and it still fits.
   */
  private keptHead(held: KeptHead | undefined, room: number, share: number): KeptHead {
    const { history, startIndex } = this;
    const { ledger } = this.env;
    if (!(share > 0)) return { start: startIndex, end: startIndex, tokens: 0, user: -1, messages: [] };
    let newestUser = history.length;
    while (newestUser > startIndex && history[newestUser - 1]!.role !== 'user') newestUser--;
    // The head never takes room the current turn needs: it gives way to a turn that would not fit beside it.
    let turnTokens = 0;
    for (let index = Math.max(startIndex, newestUser - 1); index < history.length && turnTokens <= room; index++)
      turnTokens += ledger.tokensWithin(history, index, room - turnTokens + 1);
    const limit = Math.max(0, Math.min(Math.floor(room * share), room - turnTokens));
    if (held !== undefined && held.start === startIndex) {
      if (held.gaveWay && held.user === newestUser) return held;
      const same =
        !held.gaveWay &&
        held.end <= history.length &&
        held.messages.every(
          (message, offset) =>
            history[startIndex + offset] === message ||
            messageFingerprint(history[startIndex + offset]!) === messageFingerprint(message),
        );
      if (same && held.tokens <= limit) return { ...held, user: newestUser };
      // A head the turn outgrew gives way for the rest of that turn (shrinking it call by call would change the prefix
      // each time).
      if (same && held.user === newestUser)
        return { start: startIndex, end: startIndex, tokens: 0, user: newestUser, messages: [], gaveWay: true };
    }
    let end = startIndex;
    let tokens = 0;
    while (end < newestUser - 1) {
      const group = groupAt(history, end);
      if (
        (group.kind !== 'tool-exchange' && group.kind !== 'user' && group.kind !== 'assistant') ||
        group.end > newestUser - 1
      )
        break;
      let groupTokens = 0;
      for (let index = group.start; index < group.end && tokens + groupTokens <= limit; index++)
        groupTokens += ledger.tokensWithin(history, index, limit - tokens - groupTokens + 1);
      if (tokens + groupTokens > limit) break;
      tokens += groupTokens;
      end = group.end;
    }
    return { start: startIndex, end, tokens, user: newestUser, messages: history.slice(startIndex, end) };
  }
}

/** How many of `payload`'s leading messages are the same objects as the sent payload's (0 without one). */
function repeatedMessages(hold: LayoutHold, payload: LLMPayload): number {
  const previous = hold.sent?.messages;
  if (previous === undefined) return 0;
  const messages = payload.messages;
  const shared = Math.min(previous.length, messages.length);
  for (let index = 0; index < shared; index++) if (previous[index] !== messages[index]) return index;
  return shared;
}

/**
 * Tokens of `payload` that repeat the sent payload's start: the tools when they are the same, then
 * its `index` leading messages that are the same objects (the composer reuses its system and memory
 * messages and the caller's history messages, so an unchanged message is the same object). Counted
 * as the payload's tokens less the differing rest, so a turn that only appends counts only what it
 * appended; a memory block in the rest counts as fitted (`blockTokens`), so a new block, such as
 * recall's each question, is not tokenized again for this figure. When the shared start is the
 * shorter part and every message's tokens are its own count (`countedWhole`: no truncated copy
 * counted by its cut), the rest is the payload's message tokens less the shared start, so a window
 * that slid costs its few leading messages, not the window.
 */
function repeatedPrefixTokens(
  counter: ITokenCounter,
  hold: LayoutHold,
  payload: LLMPayload,
  index: number,
  requested: ReadonlyArray<ToolDefinition>,
  countedWhole: boolean,
  blockTokens: ReadonlyMap<ChatMessage, number>,
): number {
  const previous = hold.sent;
  if (previous === undefined) return 0;
  const sameTools =
    previous.requested === requested || JSON.stringify(previous.tools) === JSON.stringify(payload.tools);
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
    differing = 0;
    for (let position = index; position < messages.length; position++) {
      const message = messages[position]!;
      differing += blockTokens.get(message) ?? counter.countMessage(message);
    }
  }
  return Math.max(0, stats.output_tokens - differing);
}

/**
 * `blocks` with the held block in place of each one whose content changed since the sent payload
 * and that may stand for it (`MemoryBlock.holds`); undefined when no block is held. A held block is
 * valid only while the history still holds what it covered (its last covered message is the same).
 */
function heldMemoryFor(
  hold: LayoutHold,
  blocks: ReadonlyArray<MemoryBlock>,
  history: ReadonlyArray<ChatMessage>,
): MemoryBlock[] | undefined {
  if (hold.memory.size === 0) return undefined;
  let holds = false;
  const candidates = blocks.map((block) => {
    const held = block.holds !== undefined && block.covers !== undefined ? hold.memory.get(block.name) : undefined;
    if (held === undefined || held.block.content === block.content || !block.holds!(held.block)) return block;
    const until = held.block.covers?.until ?? 0;
    if (until > history.length || (until > 0 && messageFingerprint(history[until - 1]!) !== held.anchor)) return block;
    holds = true;
    return held.block;
  });
  return holds ? candidates : undefined;
}

/** The shortened form of each block `fitted` sent shortened. */
function nextForms(fitted: ReadonlyArray<FittedMemoryBlock>): Map<string, HeldForm> {
  const forms = new Map<string, HeldForm>();
  for (const { block, outcome, message, tokens, fullTokens } of fitted) {
    if (outcome === 'shortened' && message !== undefined)
      forms.set(block.name, { content: block.content, message, tokens, fullTokens });
  }
  return forms;
}

/**
 * The hold's memory blocks with the sent blocks that may be held (see `MemoryBlock.holds`) in place; the others of
 * `fitted` forgotten.
 */
function nextHeldMemory(
  hold: LayoutHold,
  fitted: ReadonlyArray<FittedMemoryBlock>,
  history: ReadonlyArray<ChatMessage>,
): LayoutHold['memory'] {
  const memory = new Map(hold.memory);
  for (const { block, message } of fitted) {
    const until = block.covers?.until ?? 0;
    if (message === undefined || block.holds === undefined || block.covers === undefined || until > history.length) {
      memory.delete(block.name);
      continue;
    }
    if (memory.get(block.name)?.block === block) continue;
    memory.set(block.name, { block, anchor: until > 0 ? messageFingerprint(history[until - 1]!) : undefined });
  }
  return memory;
}

/**
 * Fits each block into what is left of `allowance`. With `forms` (the hold's), a block shortened in
 * the sent payload is sent in that form again while its content is the same and the form fits.
 */
function fitBlocks(
  env: LayoutEnvironment,
  blocks: ReadonlyArray<MemoryBlock>,
  redundant: ReadonlySet<MemoryBlock>,
  allowance: number,
  forms: LayoutHold['forms'] | undefined,
): FittedMemoryBlock[] {
  let left = Math.max(0, allowance);
  return blocks.map((block) => {
    if (redundant.has(block)) return { block, outcome: 'redundant', message: undefined, tokens: 0, fullTokens: 0 };
    const form = forms?.get(block.name);
    if (form !== undefined && form.content === block.content && form.tokens <= left) {
      left -= form.tokens;
      return { block, outcome: 'shortened', message: form.message, tokens: form.tokens, fullTokens: form.fullTokens };
    }
    const fitted = fitMemoryBlock(block, left, env.counter, env.memoryMessages);
    left -= fitted.tokens;
    return fitted;
  });
}

function blockReductions(fitted: FittedMemoryBlock[], at: number): ReductionRecord[] {
  const records: ReductionRecord[] = [];
  for (const { block, outcome, tokens, fullTokens } of fitted) {
    if (outcome === 'shortened') {
      records.push({
        action: 'truncated',
        from: at,
        to: at,
        messages: 0,
        tokensBefore: fullTokens,
        tokensAfter: tokens,
        reason: `${block.name} block shortened to its share of the budget`,
        recoverableFrom: 'history',
        cause: 'memory-block',
      });
    } else if (outcome === 'left-out') {
      records.push({
        action: 'dropped',
        from: at,
        to: at,
        messages: 0,
        tokensBefore: fullTokens,
        tokensAfter: 0,
        reason: `${block.name} block left out: no room beside the newest user message`,
        recoverableFrom: 'history',
        cause: 'memory-block',
      });
    }
  }
  return records;
}

/** Tokens of `history[from, end)` counted back from `end`, stopping once they pass `limit`. */
function tokensBefore(
  ledger: HistoryLedger,
  history: ReadonlyArray<ChatMessage>,
  end: number,
  from: number,
  limit: number,
): number {
  let tokens = 0;
  for (let index = end - 1; index >= from && tokens <= limit; index--)
    tokens += ledger.tokensWithin(history, index, limit - tokens + 1);
  return Math.min(tokens, limit);
}

/** Tokens of the newest user message at or after `startIndex` (up to `limit`), 0 when there is none. */
function newestUserTokens(
  ledger: HistoryLedger,
  history: ReadonlyArray<ChatMessage>,
  startIndex: number,
  limit: number,
): number {
  for (let index = history.length - 1; index >= startIndex; index--) {
    if (history[index]!.role === 'user') return Math.min(limit, ledger.tokensWithin(history, index, limit));
  }
  return 0;
}
