import type { MemoryBlock } from '../composer/memory-block';
import { DEFAULT_MEMORY_SHARE } from '../composer/memory-share';
import type { ComposedPayload, ComposeRequest, PayloadComposer } from '../composer/payload-composer';
import type { ChatMessage } from '../contracts/chat-message';
import type { RecallScopeKey } from '../contracts/recall-backend';
import type { ITextEmbedder } from '../contracts/text-embedder';
import { RecallScopeError } from '../errors/recall-scope-error';
import { safeEmit } from '../events/event-bus';
import { messageFingerprint } from '../ledger/history-ledger';
import { selectHistoryWindow } from '../ledger/select-history-window';
import { newestUserIndex } from '../messages/newest-user-index';
import { FailureBackoff } from '../model-calls/failure-backoff';
import type { StrategyContext } from '../plugins/strategy-plugin';
import { contentText } from '../token-counting/message-text';
import type { ITokenCounter } from '../token-counting/token-counter';
import { isThin, type RankedEntry, rankRecall, RECALL_RANKING } from './rank-recall';
import { chronological, RecallBlockCounter, recallBlockText } from './recall-block';
import type { RecallConfig } from './recall-config';
import type { RecallEmbeddingState } from './recall-embedding-state';
import type { IndexedEntry, RecallIndex } from './recall-index';
import { openRecallIndex, type RecallIndexLease } from './recall-index-registry';
import { recallTermsOf } from './recall-terms';

/** Name of the recall block in stats and reductions. */
export const RECALL_BLOCK_NAME = 'recall';

/** Reason of the `recalled` reductions. */
export const RECALLED_REASON = 'older than the window, recalled for the newest user message';

/** After the embedder fails, it is skipped this long, doubling per failure up to {@link MAX_EMBEDDING_BACKOFF_MS}. */
const FIRST_EMBEDDING_BACKOFF_MS = 30_000;
const MAX_EMBEDDING_BACKOFF_MS = 15 * 60_000;
/** Entries embedded per background request. */
const EMBEDDING_BATCH = 32;
/** Tokens a run label takes, as estimated while packing (the block is counted exactly after). */
const LABEL_TOKENS_ESTIMATE = 16;
/**
 * Splits of the room between the window and recall that are weighed (recall up to its allowance, in this many steps).
 */
const SPLIT_STEPS = 10;
/**
 * The strategy's memory gives recall room only while recall's own allowance is at least this share
 * of the memory's tokens. In a small room the present turn takes recall's allowance, and the memory
 * holds what the window cannot: yielding there cost 0.6 points of tau-bench facts at 4,000 tokens.
 */
const MEMORY_YIELD_MIN_ALLOWANCE = 0.3;
/** Fixed-point rounds between the recall block's size and the window's start. */
const MAX_LAYOUT_ROUNDS = 4;

/** What {@link RecallLayer.prepare} found for one compose. */
export interface PreparedRecall {
  /** The newest user message's text (the query); empty when there is none. */
  query: string;
  previous?: string;
  /** The question's matches by the store's own search, when it has one. */
  found?: Map<string, number>;
  previousFound?: Map<string, number>;
  vector?: { model: string; values: number[] };
  embedding: RecallEmbeddingState;
  /** Why recall is off for this compose (the index could not be read or written). */
  error?: { code: string; message: string };
  /**
   * The newest user message comes after a pause: more than an episode's gap after the session's newest
   * turn indexed before this compose, by the index's clock. Never in a preview (it reads no clock).
   */
  afterPause?: boolean;
}

/** What a payload's recall did, in `stats.extra.recall`. */
export interface RecallStats {
  scope: 'session' | 'resource';
  /** Entries ranked relevant (before packing). */
  candidates: number;
  /** The recalled entries, oldest first. */
  hits: Array<{ sessionId: string; from: number; to: number; at: number; relevance: number }>;
  /** Tokens of the recall block (0 without one). */
  tokens: number;
  /** Tokens recall could take. */
  allowanceTokens: number;
  /**
   * Tokens of the strategy's memory (its summary or state) given to recall: the older turns bore more on the question.
   */
  memoryYieldedTokens: number;
  embedding: RecallEmbeddingState;
  error?: { code: string; message: string };
}

/**
 * The turns a sent payload recalled, for the question (the newest user message's position and
 * fingerprint), and where its window started: held for the rest of that question's turn while the
 * window keeps that start (see {@link RecallLayer.layout}).
 */
interface RecalledChoice {
  user: number;
  question: string;
  windowStart: number;
  entries: ReadonlyArray<IndexedEntry>;
}

/** What {@link RecallLayer} is built from. */
export interface RecallLayerOptions {
  context: StrategyContext;
  config: RecallConfig;
  /** The counter of the strategy's model (the one its composer counts with). */
  counter: ITokenCounter;
}

/**
 * Recall as a layer of any strategy: it keeps the session's (or resource's) recall index up to date
 * and adds, beside the newest history that fits, the older turns most relevant to the newest user
 * message, in one user-role block of quoted, labelled turns in chronological order.
 *
 * A strategy calls {@link prepare} before composing (it indexes what is new, and asks the embedder
 * for the question's vector within its deadline), lays out through {@link layout} instead of its
 * composer, and calls {@link onTurnComplete} with each finished turn.
 * @see docs/strategies/recall.md
 */
export class RecallLayer {
  private lease: RecallIndexLease | undefined;
  private readonly scope: RecallScopeKey;
  private readonly embedder: ITextEmbedder | undefined;
  private readonly embeddingBackoff = new FailureBackoff({
    firstMs: FIRST_EMBEDDING_BACKOFF_MS,
    maxMs: MAX_EMBEDDING_BACKOFF_MS,
  });
  private embeddingJob: Promise<void> | undefined;
  private readonly blockCounter: RecallBlockCounter;
  /** The index terms of the lines of the memory block last weighed against recall ({@link lineTermsOf}). */
  private memoryLineTerms: { content: string; lines: Array<ReadonlySet<string>> } | undefined;
  /** What each layout that sent a recall block recalled, until it is committed (or forgotten with its payload). */
  private readonly choices = new WeakMap<object, RecalledChoice>();
  /** What the payload last committed recalled (see {@link layout}). */
  private held: RecalledChoice | undefined;
  private disposed = false;

  constructor(private readonly options: RecallLayerOptions) {
    const { context, config } = options;
    this.scope = {
      agentId: context.agentId,
      scope: config.scope,
      id: config.scope === 'resource' ? (context.resourceId ?? '') : context.sessionId,
    };
    this.embedder = config.embeddings === 'auto' ? context.embedder : undefined;
    this.blockCounter = new RecallBlockCounter(options.counter, (entry) => this.index.textOf(entry));
  }

  /**
   * The scope's index, opened on first use.
   * @throws RecallScopeError (`CTXKIT_RECALL_SCOPE_UNAVAILABLE`) for `scope: "resource"` on a session opened without a
   *   resourceId
   */
  private get index(): RecallIndex {
    const { context } = this.options;
    if (this.scope.scope === 'resource' && context.resourceId === undefined)
      throw new RecallScopeError(context.strategyId, context.agentId, context.sessionId);
    this.lease ??= openRecallIndex(this.options.context.store, this.scope, this.options.config.maxUnitChars, () =>
      this.options.context.now(),
    );
    return this.lease.index;
  }

  /**
   * Indexes the turns before the current one that are not indexed yet, reads what other sessions or
   * processes added, and asks the embedder for the question's vector (within `embeddingTimeoutMs`,
   * never while it is backing off after a failure). With `preview`, only reads the index. Never
   * throws: a store that fails leaves this compose without recall, said in `error`.
   */
  async prepare(
    history: ReadonlyArray<Readonly<ChatMessage>>,
    options: { preview?: boolean } = {},
  ): Promise<PreparedRecall> {
    const newestUser = newestUserIndex(history);
    const query = newestUser >= 0 ? contentText(history[newestUser]!.content) : '';
    const before = newestUser > 0 ? history[newestUser - 1] : undefined;
    const previous =
      before && before.role === 'assistant' && typeof before.content === 'string' && before.content.length > 0
        ? before.content
        : undefined;
    const index = this.index;
    const sessionId = this.options.context.sessionId;
    let lastSaidAt: number | undefined;
    try {
      // A preview reads the index as it is: it stores nothing and calls no model.
      if (options.preview) await index.refresh();
      else {
        // When the session's newest turn was said, before this compose indexes any (a pause is measured from it).
        if (!index.read) await index.refresh();
        const said = index.sessionEntries(sessionId);
        lastSaidAt = said[said.length - 1]?.at;
        await index.index(
          sessionId,
          history,
          newestUser >= 0 ? newestUser : history.length,
          this.blockCounter.lineCounter(),
        );
      }
    } catch (error) {
      return { query, ...(previous ? { previous } : {}), embedding: 'none', error: errorSummary(error) };
    }
    const now = options.preview ? undefined : index.checkedAt;
    const afterPause = now !== undefined && lastSaidAt !== undefined && now - lastSaidAt > RECALL_RANKING.episodeGapMs;
    if (!options.preview) this.scheduleEmbedding();
    const { vector, embedding } =
      query.length > 0 && !options.preview
        ? await this.queryVector(query)
        : { vector: undefined, embedding: 'none' as const };
    let searched: Pick<PreparedRecall, 'found' | 'previousFound'> = {};
    try {
      const found = await index.searchInBackend(query, RECALL_RANKING.maxCandidates);
      const previousFound =
        previous && isThin(query) ? await index.searchInBackend(previous, RECALL_RANKING.maxCandidates) : undefined;
      searched = { ...(found ? { found } : {}), ...(previousFound ? { previousFound } : {}) };
    } catch (error) {
      return { query, embedding, error: errorSummary(error) };
    }
    return {
      query,
      ...(previous ? { previous } : {}),
      ...(vector ? { vector } : {}),
      ...searched,
      embedding,
      ...(afterPause ? { afterPause } : {}),
    };
  }

  /**
   * Composes with `composer` as `request` asks, plus the recall block: when the history no longer
   * fits (or other sessions hold relevant turns), the most relevant older turns the window does not
   * hold take up to `share` of the room, the newest history the rest. The block goes right before the
   * newest user message, so that the history before it stays in the provider's cached prefix; while
   * the window keeps its start (`cutBackRatio` below 1), the turns recalled for a question are sent
   * again on each step of its turn as long as they fit, and a held start that would leave more of the
   * room unused than a cut does lets go. The conversation's first messages are not
   * kept in front of the window (`keepFirstShare`): recall brings back the older turns that bear on
   * the question instead. The block's recalled ranges are reported as `recalled`, the rest of what is
   * older than the window as `dropped`; `stats.extra.recall` says what was recalled and why. A
   * layout, not committed: commit the one sent with the composer, then call {@link committed}.
   */
  layout(composer: PayloadComposer, asked: ComposeRequest, prepared: PreparedRecall): ComposedPayload {
    // After a pause the provider's cache has expired: the window takes the whole room again.
    const request: ComposeRequest = {
      ...asked,
      keepFirstShare: 0,
      ...(prepared.afterPause ? { cutBackRatio: 1 } : {}),
    };
    const plain = composer.layout(request);
    const history = request.history;
    const startIndex = Math.max(0, Math.floor(request.startIndex ?? 0));
    const memoryTokens = plain.payload.stats.sections.memory;
    let historyRoom = Math.max(0, plain.roomTokens - memoryTokens);
    const keepsAll =
      plain.window.fromIndex <= startIndex &&
      !plain.payload.stats.reductions.some((record) => record.cause === 'older-than-window');
    // The newest history kept before recall takes any room: the whole current turn (recall never takes
    // the room it needs), and `minRecentTokens` of the room.
    const newestUser = newestUserIndex(history);
    let currentTurnTokens = 0;
    for (let index = Math.max(0, newestUser); index < history.length && currentTurnTokens <= historyRoom; index++) {
      currentTurnTokens += composer.ledger.tokensWithin(history, index, historyRoom - currentTurnTokens + 1);
    }
    // A history that fits whole holds back no more than it has (room for other sessions' turns).
    const minRecent = keepsAll
      ? Math.min(this.options.config.minRecentTokens, plain.window.tokens)
      : this.options.config.minRecentTokens;
    const keepRecent = Math.min(historyRoom, Math.max(currentTurnTokens, minRecent));
    const allowanceIn = (room: number) =>
      Math.max(0, Math.min(Math.floor(room * this.options.config.share), room - keepRecent));
    let allowance = allowanceIn(historyRoom);
    const stats: RecallStats = {
      scope: this.scope.scope,
      candidates: 0,
      hits: [],
      tokens: 0,
      allowanceTokens: allowance,
      memoryYieldedTokens: 0,
      embedding: prepared.embedding,
      ...(prepared.error ? { error: prepared.error } : {}),
    };
    const extra = request.extra ?? {};
    extra.recall = stats;
    const sessionId = this.options.context.sessionId;
    const own = (entry: IndexedEntry): boolean => entry.sessionId === sessionId;
    if (
      prepared.error !== undefined ||
      prepared.query.length === 0 ||
      allowance <= 0 ||
      (keepsAll && this.scope.scope === 'session')
    ) {
      return composer.layout({ ...request, extra });
    }

    // Everything before the current turn is ranked: what the window dropped (candidates) and the
    // window's own older turns (what a recalled turn may displace).
    const currentTurn = newestUser >= 0 ? newestUser : history.length;
    // Where the current episode begins: fillers may take the room of earlier episodes' turns only.
    const episodeFrom = this.currentEpisodeFrom(sessionId, currentTurn, prepared.afterPause === true);
    const windowStart = keepsAll ? startIndex : plain.window.fromIndex;
    const fillers = !keepsAll && episodeFrom > windowStart;
    // Every field present, absent ones undefined: one literal's shape at every turn (see `rankRecall`).
    const ranked = rankRecall(this.index, {
      text: prepared.query,
      floor: fillers ? RECALL_RANKING.fillerRelevance : undefined,
      previous: prepared.previous,
      vector: prepared.vector,
      found: prepared.found,
      previousFound: prepared.previousFound,
      currentSession: sessionId,
      currentTurn,
      sizes: this.blockCounter,
    });
    stats.candidates = ranked.filter((item) => item.relevance >= RECALL_RANKING.minRelevance).length;
    // The strategy's own memory (a summary, a state) gives recall the room it is worth less than.
    const memoryYielded = this.memoryYield(
      ranked,
      request.memory ?? [],
      memoryTokens,
      allowance,
      windowStart,
      prepared.query,
      prepared.afterPause === true,
    );
    if (memoryYielded > 0) {
      historyRoom += memoryYielded;
      allowance = allowanceIn(historyRoom);
      stats.allowanceTokens = allowance;
      stats.memoryYieldedTokens = memoryYielded;
    }
    // The splits tried: the window with all the room, then with less by steps of a tenth of the room.
    const splits: Array<{ start: number; tokens: number }> = [{ start: windowStart, tokens: plain.window.tokens }];
    if (!keepsAll) {
      for (let step = 1; step <= SPLIT_STEPS; step++) {
        const recallRoom = Math.floor((allowance * step) / SPLIT_STEPS);
        const window = selectHistoryWindow({
          history,
          startIndex,
          budgetTokens: historyRoom - recallRoom,
          counter: this.options.counter,
          ledger: composer.ledger,
          strategyId: this.options.context.strategyId,
        });
        splits.push({ start: window.fromIndex, tokens: window.tokens });
      }
    }
    // An entry whose text cannot be read back (its history changed in place since it was checked) is left out.
    const readable = (entry: IndexedEntry) => this.index.textOf(entry).length > 0;
    const choose = () => this.select(ranked, splits, historyRoom, allowance, currentTurn, episodeFrom).filter(readable);
    const question = newestUser >= 0 ? messageFingerprint(history[newestUser]!) : '';
    const held = this.heldFor(newestUser, question, windowStart, ranked);
    let chosen = held ?? choose();
    let { text: blockText, tokens: blockTokens, entries } = this.fit(chosen, ranked, allowance);
    // Turns held for the question go again only whole: a block that lost some is chosen afresh.
    if (held !== undefined && entries.length < held.length)
      ({ text: blockText, tokens: blockTokens, entries } = this.fit(choose(), ranked, allowance));
    chosen = entries;
    // The window the rest of the room holds must not hold a recalled turn again.
    for (let round = 0; round < MAX_LAYOUT_ROUNDS && chosen.some(own); round++) {
      const start = keepsAll
        ? startIndex
        : selectHistoryWindow({
            history,
            startIndex,
            budgetTokens: historyRoom - blockTokens,
            counter: this.options.counter,
            ledger: composer.ledger,
            strategyId: this.options.context.strategyId,
          }).fromIndex;
      if (!chosen.some((entry) => own(entry) && entry.to > start)) break;
      ({
        text: blockText,
        tokens: blockTokens,
        entries: chosen,
      } = this.fit(
        chosen.filter((entry) => !own(entry) || entry.to <= start),
        ranked,
        allowance,
      ));
    }
    if (chosen.length === 0) return composer.layout({ ...request, extra });

    const relevance = new Map(ranked.map((item) => [item.entry.id, item.relevance]));
    stats.hits = chosen.map((entry) => ({
      sessionId: entry.sessionId,
      from: entry.from,
      to: entry.to,
      at: entry.at,
      relevance: round3(relevance.get(entry.id) ?? 0),
    }));
    stats.tokens = blockTokens;
    const block: MemoryBlock = {
      name: RECALL_BLOCK_NAME,
      content: blockText,
      tokens: blockTokens,
      role: 'user',
      placement: 'before-newest-user',
      recalls: mergedRanges(chosen.filter(own)),
      shrink: (maxTokens) => this.shrink(chosen, ranked, maxTokens),
    };
    // The recall block goes first in priority, with its own room on top of the memory's share.
    const baseAllowance =
      memoryYielded > 0
        ? memoryTokens - memoryYielded
        : Math.floor(plain.roomTokens * (request.memoryShare ?? DEFAULT_MEMORY_SHARE));
    const memoryShare = Math.min(1, (baseAllowance + blockTokens + 1) / Math.max(1, plain.roomTokens));
    const withBlock: ComposeRequest = { ...request, memory: [block, ...(request.memory ?? [])], memoryShare, extra };
    let composed = composer.layout(withBlock);
    // A window that keeps a start held from a cut beside a larger block would leave more of the room
    // unused than a cut does: it takes the room recall leaves instead.
    const cutBack = request.cutBackRatio ?? 1;
    const sent = composed.payload.stats;
    if (cutBack < 1 && sent.budget.available - sent.output_tokens > Math.ceil((1 - cutBack) * plain.roomTokens))
      composed = composer.layout({ ...withBlock, cutBackRatio: 1 });
    if (composed.memory[0] === 'sent')
      this.choices.set(composed.payload, {
        user: newestUser,
        question,
        windowStart: composed.window.fromIndex,
        entries: chosen,
      });
    // As the strategy composed it: its own blocks' outcomes and the memory's share of the room.
    return {
      ...composed,
      memory: composed.memory.slice(1),
      memoryAllowanceTokens: plain.memoryAllowanceTokens,
    };
  }

  /**
   * The turns the committed payload recalled, when this layout asks the same question of a window
   * with the same start (a later step of the same turn) and each of them is still ranked and readable.
   */
  private heldFor(
    user: number,
    question: string,
    windowStart: number,
    ranked: ReadonlyArray<RankedEntry>,
  ): IndexedEntry[] | undefined {
    const held = this.held;
    if (held === undefined || held.user !== user || held.question !== question || held.windowStart !== windowStart)
      return undefined;
    const byId = new Map(ranked.map((item) => [item.entry.id, item.entry]));
    const entries = held.entries.map((entry) => byId.get(entry.id));
    return entries.every((entry) => entry !== undefined && this.index.textOf(entry).length > 0)
      ? (entries as IndexedEntry[])
      : undefined;
  }

  /**
   * Call with the payload sent, once the composer committed it: holds what it recalled for the rest of
   * its turn, and emits `history-recall` when it recalled turns (`stats.extra.recall`).
   */
  committed(composer: PayloadComposer, composed: ComposedPayload, turn: number): void {
    this.held = this.choices.get(composed.payload);
    const stats = composed.payload.stats.extra?.recall as RecallStats | undefined;
    if (stats === undefined || stats.hits.length === 0) return;
    safeEmit(this.options.context.events, 'history-recall', {
      ...composer.eventBase(turn),
      hits: stats.hits,
      tokens: stats.tokens,
      candidates: stats.candidates,
      embedding: stats.embedding,
    });
  }

  /** Indexes the finished turn (every whole unit of the history). */
  async onTurnComplete(history: ReadonlyArray<Readonly<ChatMessage>>): Promise<void> {
    const index = this.index;
    try {
      await index.index(this.options.context.sessionId, history, history.length, this.blockCounter.lineCounter());
    } catch {
      // The store failed: the turn is indexed with the next compose or turn, from the history itself.
      return;
    }
    this.scheduleEmbedding();
  }

  /** Resolves once indexing and background embedding have settled. */
  async whenIdle(): Promise<void> {
    if (this.lease === undefined) return;
    await this.index.idle();
    while (this.embeddingJob !== undefined) await this.embeddingJob;
  }

  /** Releases the index (shared ones when their last user goes). Safe to call more than once. */
  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    this.lease?.release();
  }

  /**
   * Tokens of the strategy's memory blocks (sent as `memoryTokens`) that recall may take instead:
   * as many as the candidates beyond recall's own allowance are worth more per token than the memory.
   * Both are weighed in one currency, the question's words each weighed by their rarity (a summary's
   * lines cannot be scored by the index's BM25): a memory that bears on the question keeps its room,
   * a long history's summary that does not gives it to the turns that do. After a pause (`afterPause`)
   * the memory gives all of its room while recall has a candidate: the question may be about anything
   * it retold, the turns recalled for it carry their exact words, and a 5-minute prompt cache has
   * expired by then, so changing the payload's start costs no cached prefix.
   */
  private memoryYield(
    ranked: ReadonlyArray<RankedEntry>,
    memory: ReadonlyArray<MemoryBlock>,
    memoryTokens: number,
    allowance: number,
    windowStart: number,
    query: string,
    afterPause: boolean,
  ): number {
    const lexical = this.index.lexical;
    if (
      lexical === undefined ||
      memoryTokens <= 0 ||
      allowance < memoryTokens * MEMORY_YIELD_MIN_ALLOWANCE ||
      ranked.length === 0
    )
      return 0;
    // Only when every block of the memory retells history that recall can bring back verbatim.
    if (memory.length === 0 || !memory.every((block) => block.yieldsToRecall === true)) return 0;
    const queryTerms = lexical.queryTerms(query);
    if (queryTerms.length === 0) return 0;
    const sessionId = this.options.context.sessionId;
    const candidates: Array<{ value: number; cost: number }> = [];
    let best = 0;
    for (const { entry } of ranked) {
      if (entry.sessionId === sessionId && entry.to > windowStart) continue;
      const slot = this.index.slotOf(entry.id);
      const value = slot === undefined ? 0 : lexical.coverage(queryTerms, lexical.terms(slot));
      if (value <= 0) continue;
      best = Math.max(best, value);
      candidates.push({ value, cost: this.tokensOf(entry) + LABEL_TOKENS_ESTIMATE });
    }
    if (best === 0) return 0;
    if (afterPause) return memoryTokens;
    let memoryValue = 0;
    for (const block of memory)
      for (const terms of this.lineTermsOf(block.content))
        memoryValue += Math.min(best, lexical.coverage(queryTerms, terms));
    const memoryDensity = memoryValue / memoryTokens;
    candidates.sort((a, b) => b.value / b.cost - a.value / a.cost);
    // What recall's own allowance holds already, then what the memory's room would add.
    let skipped = 0;
    let yielded = 0;
    for (const { value, cost } of candidates) {
      if (skipped + cost <= allowance) {
        skipped += cost;
        continue;
      }
      if (value / cost <= memoryDensity) break;
      if (yielded + cost > memoryTokens) continue;
      yielded += cost;
    }
    return yielded;
  }

  /**
   * The index terms of each non-empty line of a memory block's text. The last block's are kept: a
   * summary changes only when a fold lands, and stemming its lines again on every compose would cost
   * more than ranking.
   */
  private lineTermsOf(content: string): ReadonlyArray<ReadonlySet<string>> {
    if (this.memoryLineTerms?.content !== content) {
      this.memoryLineTerms = {
        content,
        lines: content
          .split('\n')
          .filter((line) => line.length > 0)
          .map((line) => new Set(recallTermsOf(line))),
      };
    }
    return this.memoryLineTerms.lines;
  }

  /**
   * Where the current episode begins in the history: the current turn when the newest user message
   * comes after a pause ({@link PreparedRecall.afterPause}), else the episode of the session's newest
   * indexed turn. Turns before it belong to earlier episodes, not to the work in progress.
   */
  private currentEpisodeFrom(sessionId: string, currentTurn: number, afterPause: boolean): number {
    const own = this.index.sessionEntries(sessionId);
    const newest = own.length - 1;
    if (newest < 0 || afterPause) return currentTurn;
    const from = this.index.episodeStart(sessionId, newest, RECALL_RANKING.episodeGapMs);
    return from < 0 ? currentTurn : Math.min(from, currentTurn);
  }

  /** Tokens an entry's text takes in the block (counted once per entry). */
  private tokensOf(entry: IndexedEntry): number {
    return this.blockCounter.estimateTokens(entry);
  }

  /**
   * The layout with the most relevance in all: for a few splits of the room between the window and
   * recall (recall up to its allowance), the window's older turns count their relevance and the
   * recalled ones, packed by relevance per token into the rest, count theirs. So recall takes room
   * from the window only when older turns bear more on the newest message than the recent ones they
   * replace (a recent turn worth nothing more than its relevance measured best on tau-bench and
   * LongMemEval_S; `minRecentTokens` keeps the present turn whole in small windows). Fillers
   * (entries below the floor, ranked when the window holds an earlier episode's turns) are packed
   * after every relevant entry, only into splits whose window still holds the whole current episode
   * (from `episodeFrom`), and decide between splits only when their relevant entries weigh the same.
   * @returns the entries to recall
   */
  private select(
    ranked: ReadonlyArray<RankedEntry>,
    splits: ReadonlyArray<{ start: number; tokens: number }>,
    historyRoom: number,
    allowance: number,
    currentTurn: number,
    episodeFrom: number,
  ): IndexedEntry[] {
    const sessionId = this.options.context.sessionId;
    // The preamble, the frame's tags and one label: what the block costs besides its entries.
    const frame = this.blockCounter.messageTokens([emptyEntry(sessionId)], sessionId);
    // Best relevance per token first, only as many as could fill the allowance twice over.
    // Fillers (less relevant than the floor, ranked only after a pause) come after every relevant entry.
    const candidates: PackCandidate[] = [];
    for (const { entry, relevance } of ranked)
      candidates.push({
        entry,
        relevance,
        cost: this.tokensOf(entry),
        filler: relevance < RECALL_RANKING.minRelevance,
      });
    candidates.sort(byRelevancePerToken);
    let reach = 0;
    let kept = 0;
    while (kept < candidates.length && reach <= 2 * allowance)
      reach += candidates[kept++]!.cost + LABEL_TOKENS_ESTIMATE;
    const order = candidates.slice(0, kept);
    const ownRanked = ranked.filter(({ entry }) => entry.sessionId === sessionId);
    // Weighed by the relevant entries first; fillers only break a tie (the turns they displace bear no
    // more on the question than they do).
    let best: { entries: IndexedEntry[]; value: number; filler: number } | undefined;
    for (const split of splits) {
      const room = Math.min(allowance, historyRoom - split.tokens) - frame;
      const packed =
        room > 0
          ? this.pack(order, split.start, room, split.start <= episodeFrom)
          : { entries: [], value: 0, filler: 0 };
      let { value, filler } = packed;
      for (const { entry, relevance } of ownRanked)
        if (entry.from >= split.start && entry.to <= currentTurn) {
          if (relevance >= RECALL_RANKING.minRelevance) value += relevance;
          else filler += relevance;
        }
      const tolerance = 1e-9 * Math.max(1, value);
      if (
        best === undefined ||
        value > best.value + tolerance ||
        (value >= best.value - tolerance && filler > best.filler + 1e-9)
      )
        best = { entries: packed.entries, value, filler };
    }
    return best?.entries ?? [];
  }

  /**
   * The entries of `order` (best relevance per token first) that fit `room` tokens, this session's
   * only from before `windowStart`; a run of neighbours shares one label.
   */
  private pack(
    order: ReadonlyArray<PackCandidate>,
    windowStart: number,
    room: number,
    fillers: boolean,
  ): { entries: IndexedEntry[]; value: number; filler: number } {
    const sessionId = this.options.context.sessionId;
    // Where taken runs start and end, by session: an entry next to one joins its run (no new label).
    const edges = new Map<string, Set<number>>();
    const entries: IndexedEntry[] = [];
    let left = room;
    let value = 0;
    let fillerValue = 0;
    for (const { entry, relevance, cost: own, filler } of order) {
      if (left <= 0 || (filler && !fillers)) break;
      if (entry.sessionId === sessionId && entry.to > windowStart) continue;
      let sessionEdges = edges.get(entry.sessionId);
      const joinsRun = sessionEdges !== undefined && (sessionEdges.has(entry.from) || sessionEdges.has(entry.to));
      const cost = own + (joinsRun || entries.length === 0 ? 0 : LABEL_TOKENS_ESTIMATE);
      if (cost > left) continue;
      left -= cost;
      if (filler) fillerValue += relevance;
      else value += relevance;
      if (sessionEdges === undefined) edges.set(entry.sessionId, (sessionEdges = new Set()));
      sessionEdges.add(entry.from).add(entry.to);
      entries.push(entry);
    }
    return { entries, value, filler: fillerValue };
  }

  /** The block for `chosen`, counted exactly, with the least relevant entries left out until it fits `allowance`. */
  private fit(
    chosen: IndexedEntry[],
    ranked: ReadonlyArray<RankedEntry>,
    allowance: number,
  ): { text: string; tokens: number; entries: IndexedEntry[] } {
    const sessionId = this.options.context.sessionId;
    let entries = [...chosen].sort(chronological);
    let tokens = this.blockCounter.messageTokens(entries, sessionId);
    // Least useful per token first: what goes when the block is over its allowance.
    const leastUseful = tokens > allowance ? this.leastUsefulFirst(chosen, ranked) : [];
    while (entries.length > 0 && tokens > allowance) {
      const worst = leastUseful.shift()!;
      entries = entries.filter((entry) => entry !== worst);
      tokens = this.blockCounter.messageTokens(entries, sessionId);
    }
    return {
      text: entries.length === 0 ? '' : recallBlockText(entries, sessionId, (entry) => this.index.textOf(entry)),
      tokens: entries.length === 0 ? 0 : tokens,
      entries,
    };
  }

  /** `chosen` by relevance per token of its line, the least first (of equal ones, in the order chosen). */
  private leastUsefulFirst(chosen: IndexedEntry[], ranked: ReadonlyArray<RankedEntry>): IndexedEntry[] {
    const chosenIds = new Set(chosen.map((entry) => entry.id));
    const usefulness = new Map<string, number>();
    for (const item of ranked)
      if (chosenIds.has(item.entry.id))
        usefulness.set(item.entry.id, item.relevance / this.blockCounter.entryTokens(item.entry));
    return [...chosen].sort((a, b) => usefulness.get(a.id)! - usefulness.get(b.id)!);
  }

  /** The block's text within `maxTokens` of text, its least relevant entries left out (the composer's `shrink`). */
  private shrink(chosen: IndexedEntry[], ranked: ReadonlyArray<RankedEntry>, maxTokens: number): string | undefined {
    const overhead = this.options.counter.countMessage({ role: 'user', content: '' }) - this.options.counter.count('');
    const { text } = this.fit(chosen, ranked, maxTokens + overhead);
    return text.length > 0 ? text : undefined;
  }

  /** The question's vector, within the deadline; none while the embedder backs off after a failure. */
  private async queryVector(
    query: string,
  ): Promise<{ vector?: { model: string; values: number[] }; embedding: RecallEmbeddingState }> {
    const embedder = this.embedder;
    if (embedder === undefined) return { embedding: 'none' };
    if (this.embeddingBackoff.waiting(() => this.options.context.now())) return { embedding: 'backing-off' };
    try {
      const [values] = await embedBeforeDeadline(embedder, [query], this.options.config.embeddingTimeoutMs);
      if (!Array.isArray(values) || values.length === 0) throw new TypeError('the embedder returned no vector');
      this.embeddingBackoff.succeeded();
      return { vector: { model: embedder.model, values }, embedding: 'used' };
    } catch {
      this.backOff();
      return { embedding: 'failed' };
    }
  }

  private backOff(): void {
    this.embeddingBackoff.failed(this.options.context.now());
  }

  /** Embeds, in the background, the entries that have no vector of the embedder's model yet. */
  private scheduleEmbedding(): void {
    const embedder = this.embedder;
    if (embedder === undefined || this.embeddingJob !== undefined || this.disposed) return;
    if (this.embeddingBackoff.waiting(() => this.options.context.now())) return;
    const index = this.index;
    if (index.entriesWithoutVector(embedder.model, 1).length === 0) return;
    this.embeddingJob = (async () => {
      try {
        for (;;) {
          if (this.disposed) return;
          const batch = index.entriesWithoutVector(embedder.model, EMBEDDING_BATCH);
          if (batch.length === 0) return;
          const vectors = await embedBeforeDeadline(
            embedder,
            batch.map((entry) => index.textOf(entry)),
            this.options.config.embeddingTimeoutMs * 4,
          );
          if (vectors.length !== batch.length)
            throw new TypeError('the embedder returned another number of vectors than texts');
          await index.addVectors(
            embedder.model,
            batch.map((entry, position) => ({ entryId: entry.id, vector: vectors[position]! })),
          );
        }
      } catch {
        this.backOff();
      }
    })().finally(() => {
      this.embeddingJob = undefined;
    });
  }
}

/** `embedder.embed(texts)`, rejected after `timeoutMs` (the request is aborted). */
async function embedBeforeDeadline(embedder: ITextEmbedder, texts: string[], timeoutMs: number): Promise<number[][]> {
  const abort = new AbortController();
  let timer: ReturnType<typeof setTimeout> | undefined;
  const expired = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(
      () => {
        const error = new Error(`the embedder did not answer within ${timeoutMs} ms`);
        reject(error);
        abort.abort(error);
      },
      Math.max(1, timeoutMs),
    );
  });
  try {
    return await Promise.race([Promise.resolve().then(() => embedder.embed(texts, { signal: abort.signal })), expired]);
  } finally {
    clearTimeout(timer);
  }
}

/** The history ranges of `entries` (one session's), neighbours merged: `[5, 8)`, not `[5, 6)`, `[6, 7)`, `[7, 8)`. */
function mergedRanges(entries: ReadonlyArray<IndexedEntry>): Array<{ from: number; to: number; reason: string }> {
  const ranges: Array<{ from: number; to: number; reason: string }> = [];
  for (const entry of [...entries].sort((a, b) => a.from - b.from)) {
    const last = ranges[ranges.length - 1];
    if (last !== undefined && last.to === entry.from) last.to = entry.to;
    else ranges.push({ from: entry.from, to: entry.to, reason: RECALLED_REASON });
  }
  return ranges;
}

function errorSummary(error: unknown): { code: string; message: string } {
  const code = typeof (error as { code?: unknown })?.code === 'string' ? (error as { code: string }).code : 'ERROR';
  return { code, message: error instanceof Error ? error.message : String(error) };
}

function emptyEntry(sessionId: string): IndexedEntry {
  return { type: 'entry', id: '', sessionId, from: 0, to: 1, at: 0, text: '', fingerprint: '' };
}

function round3(value: number): number {
  return Math.round(value * 1000) / 1000;
}

/** A ranked entry as packing weighs it: its tokens, and whether it only fills room after every relevant one. */
interface PackCandidate {
  entry: IndexedEntry;
  relevance: number;
  cost: number;
  filler: boolean;
}

/** Relevant entries before fillers; among them, the most relevance per token first. */
function byRelevancePerToken(a: PackCandidate, b: PackCandidate): number {
  return Number(a.filler) - Number(b.filler) || b.relevance / b.cost - a.relevance / a.cost;
}
