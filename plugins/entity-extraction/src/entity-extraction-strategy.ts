import {
  type ChatMessage,
  type ComposeOptions,
  type ContextManagerCapabilities,
  conversationCacheKey,
  CtxkitError,
  type IContextManager,
  type LLMPayload,
  type ReductionEpoch,
  type ReductionPreview,
  safeEmit,
  type StrategyContext,
  type ToolDefinition,
  type UndoResult,
} from '@ctxkit/core';
import {
  contentDigest,
  contentText,
  FailureBackoff,
  payloadPreview,
  type PreparedRecall,
  RecallLayer,
  SerialQueue,
  StrategyFoundation,
  type TurnIndex,
} from '@ctxkit/core/strategy-kit';

import { ENTITY_EXTRACTION_STRATEGY_ID, type EntityExtractionConfig } from './entity-extraction-config';
import { buildExtractionInput, type ExtractionInput } from './extraction/extraction-input';
import { nextExtractionNote } from './extraction/next-extraction-note';
import { resumePoint } from './extraction/resume-point';
import type { ExtractionOutcome, StateExtractor } from './extraction/state-extractor';
import { entityStateMemoryBlock } from './payload/entity-state-memory-block';
import { entityStats, type ExtractionFailure, type PendingExtraction } from './payload/entity-stats';
import { recentTurnsStart } from './payload/recent-turns-start';
import { StateBlockCache } from './payload/state-block-cache';
import type { CompiledStateSchema } from './schema/state-schema';
import type { EntityState, EntityStateVersion, PersistedEntityState } from './state/entity-state';
import type { EntityStateAccess } from './state/entity-state-access';
import type { EntityUpdate } from './state/entity-update';
import { ExtractionEpochs, stateAfterUndo } from './state/extraction-epochs';
import { SharedEntityState } from './state/shared-entity-state';
import { stateAtVersion } from './state/state-at-version';

/** Options of {@link EntityExtractionStrategy} (what the factory resolved). */
export interface EntityExtractionStrategyOptions {
  config: EntityExtractionConfig;
  context: StrategyContext;
  schema: CompiledStateSchema;
  extractor: StateExtractor;
}

/** Store name of the persisted state (kind `entities`). */
export const ENTITY_STATE_STORE_NAME = 'state';

/** Extractions run again when their changes no longer fit the state another process wrote meanwhile. */
const MAX_EXTRACTION_RERUNS = 2;
/** The longest wait after failed extraction calls in a row (unless `extractionRetryBackoffMs` is longer). */
const MAX_EXTRACTION_BACKOFF_MS = 15 * 60_000;

/** The state a call composes with, and the messages it does not include yet (`null`: none). */
interface ExtractionResult {
  persisted: PersistedEntityState;
  pending: PendingExtraction | null;
}

/** An extraction the strategy started: what it reads, and what its update is written with. */
interface StartedExtraction {
  input: ExtractionInput;
  /** The history up to the newest message read (a copy: the caller's array may change meanwhile). */
  history: ReadonlyArray<Readonly<ChatMessage>>;
  turn: number;
}

/** `work`'s value, or `undefined` when it has not settled within `ms`. */
async function settledWithin<T>(work: Promise<T>, ms: number): Promise<T | undefined> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    return await Promise.race([
      work,
      new Promise<undefined>((resolve) => (timer = setTimeout(resolve, ms, undefined))),
    ]);
  } finally {
    clearTimeout(timer);
  }
}

function messageOf(error: unknown): string {
  return CtxkitError.isInstance(error)
    ? `${error.code}: ${error.message}`
    : error instanceof Error
      ? error.message
      : String(error);
}

/**
 * `std-entity-extraction-strategy`: keeps a structured, schema-validated state of the conversation
 * beside its newest turns. Each new user input (seen by `composePayload` for the
 * first time, or reported by `onTurnComplete`) is read by the extractor (the LLM extraction chain, or
 * the offline extractor when the agent has no model); the payload is the system prompt, the state
 * as JSON in `<conversation_state>` with the required fields still missing, then the newest history
 * that fits the rest of the budget (in lean mode only the last `recentTurns` turns). State and versions are kept per
 * agent and session in the store (kind `entities`), read afresh on every call and written with compare-and-set ({@link
 * SharedEntityState}), so that processes serving one session lose no update. Every extraction that changed the state is
 * an undoable epoch (`epochs()`, `undo(id)`), and `preview(...)` tells what the next payload would leave out and which
 * messages the next extraction would read. A call waits for the extraction's model at most `extractionWaitMs`, then
 * composes with the previous state while the extraction finishes in the background; after a failed or timed-out call
 * the model is left alone for a back-off (`extractionRetryBackoffMs`), payloads composed at once with the last state.
 * @see docs/strategies/entity-extraction.md
 */
export class EntityExtractionStrategy implements IContextManager, ContextManagerCapabilities, EntityStateAccess {
  private readonly queue = new SerialQueue();
  /** Counter, budget, composer (its ledger: a turn measures only new messages), turns and disposal. */
  private readonly base: StrategyFoundation;
  private readonly stateBlocks: StateBlockCache;
  /** The state block shortened to the room a composition left it (most turns leave the same room). */
  private readonly shortenedStateBlocks: StateBlockCache;
  /** The session's state in the store, shared with every instance and process serving it. */
  private readonly shared: SharedEntityState;
  /** The extractions that changed the state, kept as undoable epochs in the store. */
  private readonly extractionEpochs: ExtractionEpochs;
  /** The session's turn at the last call that read a history (names the turn of epochs and undo events). */
  private turn = 0;
  private lastError: ExtractionFailure | null = null;
  /** When the extraction model is called again after failed calls. */
  private readonly backoff: FailureBackoff;
  /** An extraction a call stopped waiting for, until its update is written (in the queue). */
  private running: Promise<void> | undefined;
  /** Aborts a running extraction when the strategy is disposed. */
  private readonly disposal = new AbortController();
  /** Earlier turns recalled beside the state (`config.recall`); undefined without recall. */
  private readonly recall: RecallLayer | undefined;

  constructor(private readonly options: EntityExtractionStrategyOptions) {
    const { config, context } = options;
    this.base = new StrategyFoundation(context, {
      strategyId: ENTITY_EXTRACTION_STRATEGY_ID,
      model: config.model,
      budget: config,
    });
    this.base.budget(); // an unknown model without maxContextTokens fails here, when the agent loads
    this.extractionEpochs = new ExtractionEpochs(context);
    this.shared = new SharedEntityState({
      store: context.store,
      key: this.storeKey(),
      schema: options.schema,
      warn: (message, error) => this.warn(message, error),
      written: (replaced, written) => this.extractionEpochs.recordWrite(replaced, written, this.turn),
    });
    this.stateBlocks = new StateBlockCache(options.schema, this.base.counter, options.config.memoryRole);
    this.shortenedStateBlocks = new StateBlockCache(options.schema, this.base.counter, options.config.memoryRole);
    this.recall = config.recall
      ? new RecallLayer({ context, config: config.recall, counter: this.base.counter })
      : undefined;
    this.backoff = new FailureBackoff({
      firstMs: config.extractionRetryBackoffMs,
      maxMs: Math.max(config.extractionRetryBackoffMs, MAX_EXTRACTION_BACKOFF_MS),
    });
  }

  /** The extractor in use (`offline-extractor` or `llm:<client>/<model>`). */
  get extractorName(): string {
    return this.options.extractor.name;
  }

  async composePayload(
    systemPrompt: string,
    history: ChatMessage[],
    tools: ToolDefinition[],
    ragContext?: string,
    options: ComposeOptions = {},
  ): Promise<LLMPayload> {
    this.base.assertLive('composePayload');
    this.base.turns.count(history);
    return this.queue.run(async () => {
      this.turn = this.turnsOf(history).turns;
      const { persisted, pending } = await this.extractNew(history);
      if (pending)
        this.warn(
          `the payload was composed without the extraction ` +
            `of ${
              pending.from === pending.through
                ? `message ` + `${pending.from}`
                : `messages ${pending.from}–${pending.through}`
            }: ${pending.message}`,
        );
      const recalled = await this.recall?.prepare(history);
      return this.buildPayload(systemPrompt, history, tools, ragContext, persisted, options, false, recalled, pending);
    });
  }

  /**
   * What `composePayload` with these arguments would leave out, composed with the state as it stands
   * (nothing stored, no event, the extractor not asked), and notes on the messages the extraction that
   * `composePayload` runs first would read: when there are any, the state it shows may differ.
   */
  async preview(
    systemPrompt: string,
    history: ChatMessage[],
    tools: ToolDefinition[],
    ragContext?: string,
    options: ComposeOptions = {},
  ): Promise<ReductionPreview> {
    this.base.assertLive('preview');
    this.base.turns.count(history);
    return this.queue.run(async () => {
      const persisted = await this.shared.peek();
      const recalled = await this.recall?.prepare(history, { preview: true });
      const payload = this.buildPayload(systemPrompt, history, tools, ragContext, persisted, options, true, recalled);
      const preview = payloadPreview(payload, history, this.base.counter);
      const resume = resumePoint(history, persisted);
      const held = buildExtractionInput(history, resume, this.options.extractor.trigger) ? this.heldBack() : null;
      const note = held
        ? `no extraction before the next payload: ${held.message}`
        : nextExtractionNote(history, resume, this.options.extractor);
      return { ...preview, notes: [...preview.notes, note] };
    });
  }

  /** The session's extractions that changed the state (kind `extraction`), oldest first; each can be undone. */
  async epochs(): Promise<ReductionEpoch[]> {
    this.base.assertLive('epochs');
    return this.extractionEpochs.list();
  }

  /**
   * Writes the state and versions from before extraction `epochId` back (compare-and-set, so every
   * instance and process serving the session uses them from its next read) and removes that epoch and
   * every later one. The messages the undone extractions read stay read (they are not extracted again),
   * so the next payload shows the state from before them.
   * @throws EpochNotFoundError (`CTXKIT_EPOCH_NOT_FOUND`) when the session has no such epoch
   */
  async undo(epochId: string): Promise<UndoResult> {
    this.base.assertLive('undo');
    return this.queue.run(() =>
      this.extractionEpochs.undo(
        epochId,
        (before) => this.shared.restore((current) => stateAfterUndo(current, before)),
        this.turn,
      ),
    );
  }

  async onTurnComplete(newHistory: ChatMessage[]): Promise<void> {
    this.base.assertLive('onTurnComplete');
    this.base.turns.count(newHistory);
    await this.queue.run(async () => {
      this.turn = this.turnsOf(newHistory).turns;
      // A late extraction goes on in the background; the next payload says so while it runs.
      await this.extractNew(newHistory);
    });
    await this.recall?.onTurnComplete(newHistory);
  }

  async getState(): Promise<EntityState> {
    return structuredClone((await this.load()).state);
  }

  async getVersions(): Promise<EntityStateVersion[]> {
    return structuredClone((await this.load()).versions);
  }

  async getVersion(): Promise<number> {
    const { versions } = await this.load();
    return versions.length === 0 ? 0 : versions[versions.length - 1]!.version;
  }

  async getStateAt(version: number): Promise<EntityState> {
    return stateAtVersion((await this.load()).versions, version);
  }

  async whenIdle(): Promise<void> {
    while (this.running) await this.running;
    await this.queue.idle();
    await this.recall?.whenIdle();
  }

  dispose(): void {
    this.base.dispose();
    this.disposal.abort();
    this.recall?.dispose();
  }

  /** The turn index, synced with `history` (reads only the messages new since the previous call). */
  private turnsOf(history: ReadonlyArray<Readonly<ChatMessage>>): TurnIndex {
    this.base.turns.count(history);
    return this.base.turns.index;
  }

  private storeKey() {
    const { agentId, sessionId } = this.options.context;
    return { agentId, sessionId, kind: 'entities' as const, name: ENTITY_STATE_STORE_NAME };
  }

  /**
   * The state as the store holds it now (another process may have updated it), with this instance's unsaved updates.
   */
  private load(): Promise<PersistedEntityState> {
    return this.shared.read();
  }

  private warn(message: string, error?: unknown): void {
    safeEmit(this.options.context.events, 'strategy-warning', {
      ...this.base.composer.eventBase(0),
      message: `${this.base.strategyId}: ${message}`,
      ...(CtxkitError.isInstance(error) ? { code: error.code } : {}),
    });
  }

  /**
   * Why the extraction's model is not asked now, or `null` when it may be: an extraction a call
   * stopped waiting for still runs, or calls failed recently (the back-off). The offline extractor is
   * always asked.
   */
  private heldBack(): { reason: 'running' | 'backing-off'; message: string; retryAt?: number } | null {
    if (this.running)
      return {
        reason: 'running',
        message: 'an earlier extraction the strategy stopped waiting for still runs; the next one reads these messages',
      };
    if (this.options.extractor.kind === 'offline') return null;
    const retryAt = this.backoff.retryAt;
    if (retryAt === null || !this.backoff.waiting(() => this.options.context.now())) return null;
    const failures = this.backoff.failedInARow;
    return {
      reason: 'backing-off',
      retryAt,
      message:
        `the extraction model failed or timed ` +
        `out ${failures === 1 ? 'on the last call' : `on the last ${failures} calls`} and is not called ` +
        `before ${new Date(retryAt).toISOString()} (extractionRetryBackoffMs); the first extraction after it ` +
        `reads these messages`,
    };
  }

  /**
   * Runs the extractor over the messages not read yet (new user messages, and new tool results for
   * an extractor that reads them as they arrive); updates, versions and persists the state. The
   * update is written onto the state the store holds then: if another process extracted the same
   * message meanwhile, its state stands; if it extracted an earlier one, this update's changed fields
   * go over it; if the merge fails the state schema, the extraction runs again on the new state.
   * The model is waited for at most `extractionWaitMs`, and not at all for a retry after a failed
   * call: past it the previous state is returned with the messages not read yet, and the update is
   * written when the extraction ends (a task of the queue). While an extraction runs in the background, or the model is
   * backing off, the model is not asked and the messages wait for the next extraction.
   */
  private async extractNew(history: ReadonlyArray<Readonly<ChatMessage>>, reruns = 0): Promise<ExtractionResult> {
    const persisted = await this.load();
    const resume = resumePoint(history, persisted);
    const { extractor, context, config } = this.options;
    const input = buildExtractionInput(history, resume, extractor.trigger);
    if (!input) {
      // (Not the read point from before an undo: the newest message read stays read when the history grows back to it.)
      if (resume !== persisted.processedThrough && resume !== persisted.restoredReadPoint?.index)
        persisted.processedThrough = resume;
      return { persisted, pending: null };
    }
    const unread = { from: resume + 1, through: input.sourceMessageIndex };
    const held = this.heldBack();
    if (held) return { persisted, pending: { ...held, ...unread } };
    const turn = this.turnsOf(history).turnsBefore(input.sourceMessageIndex + 1);
    this.turn = turn;
    const started: StartedExtraction = { input, history: history.slice(0, input.sourceMessageIndex + 1), turn };
    const extraction = extractor
      .extract({
        schema: this.options.schema,
        state: persisted.state,
        input,
        now: context.now(),
        signal: this.disposal.signal,
        cacheKey: conversationCacheKey(context.agentId, context.sessionId),
      })
      .catch((error: unknown): ExtractionOutcome => ({
        ok: false,
        reason: 'llm-error',
        errors: [messageOf(error)],
        attempts: 1,
      }));
    // A retry after a failed call runs in the background only: a model that is down holds one payload, once.
    const retrying = this.backoff.failedInARow > 0;
    const outcome =
      extractor.kind === 'offline'
        ? await extraction
        : await settledWithin(extraction, retrying ? 0 : config.extractionWaitMs);
    if (outcome === undefined) {
      this.running = extraction.then((late) =>
        this.queue.run(async () => {
          this.running = undefined;
          await this.applyExtraction(started, late, reruns);
        }),
      );
      const message = retrying
        ? `the extraction model failed or timed out on the last call; this retry runs in the background without ` +
          `being waited for, and the next payload uses it`
        : `the extraction model had not answered within ${config.extractionWaitMs} ms (extractionWaitMs); the ` +
          `extraction goes on in the background and the next payload uses it`;
      return { persisted, pending: { reason: 'late', ...unread, message } };
    }
    return this.applyExtraction(started, outcome, reruns);
  }

  /** Reports an extraction's outcome and writes its update (see {@link extractNew}). */
  private async applyExtraction(
    started: StartedExtraction,
    outcome: ExtractionOutcome,
    reruns: number,
  ): Promise<ExtractionResult> {
    const { input, history, turn } = started;
    const { extractor, context } = this.options;
    // Disposed meanwhile: nothing is written, the messages stay unread for the instances that go on.
    if (this.base.disposed) return { persisted: this.shared.current, pending: null };
    this.turn = turn;
    const source = history[input.sourceMessageIndex]!;
    // A call that failed or timed out holds the model back; one that answered (even unusably) ends that.
    const callFailed = !outcome.ok && outcome.reason === 'llm-error' && extractor.kind === 'llm';
    if (!callFailed) this.backoff.succeeded();
    if (outcome.ok) {
      this.lastError = null;
    } else {
      this.lastError = { reason: outcome.reason, errors: outcome.errors, sourceMessageIndex: input.sourceMessageIndex };
      const now = context.now();
      const retryAt = callFailed ? this.backoff.failed(now) : now;
      const backingOff =
        retryAt > now ? `; the model is not called again before ${new Date(retryAt).toISOString()}` : '';
      safeEmit(context.events, 'entities-error', {
        ...this.base.composer.eventBase(turn),
        reason:
          outcome.reason === 'llm-error'
            ? `the extraction call failed (${extractor.name}); the previous state stands${backingOff}`
            : `the extraction answer was invalid after ${outcome.attempts} attempt(s) (${extractor.name}); the ` +
              `previous state stands`,
        errors: [...outcome.errors],
        attempts: outcome.attempts,
      });
    }
    const update: EntityUpdate = {
      sourceMessageIndex: input.sourceMessageIndex,
      sourceFingerprint: contentDigest(contentText(source.content)),
      diff: outcome.ok ? outcome.diff : [],
      timestamp: outcome.ok && outcome.diff.length > 0 ? context.now() : 0,
      offline: extractor.offline,
      extractor: extractor.name,
    };
    const result = await this.shared.apply(
      update,
      (record) => resumePoint(history, record) >= input.sourceMessageIndex,
    );
    if (result.outcome === 'invalid') {
      if (reruns < MAX_EXTRACTION_RERUNS) return this.extractNew(history, reruns + 1);
      this.warn(
        `the extracted changes do not fit the state another process wrote (${result.errors.join('; ')}); they are ` +
          `left out and the messages are read again with the next one`,
      );
    }
    if (result.outcome === 'applied' && result.version) {
      const version = result.version;
      safeEmit(context.events, 'entities-updated', {
        ...this.base.composer.eventBase(turn),
        version: version.version,
        sourceMessageIndex: version.sourceMessageIndex,
        diff: structuredClone(version.diff),
        offline: version.offline,
      });
    }
    return { persisted: this.shared.current, pending: null };
  }

  private buildPayload(
    systemPrompt: string,
    history: ReadonlyArray<Readonly<ChatMessage>>,
    tools: ToolDefinition[],
    ragContext: string | undefined,
    persisted: PersistedEntityState,
    options: ComposeOptions,
    preview = false,
    recalled?: PreparedRecall,
    pending: PendingExtraction | null = null,
  ): LLMPayload {
    const { config } = this.options;
    const version = persisted.versions.length;
    const turns = this.turnsOf(history);
    const block = this.stateBlocks.render(persisted.state, version, config.stateMaxTokens);
    if (block.truncatedFields.length > 0 && !preview) {
      this.warn(
        `the state block was shortened to fit ${config.stateMaxTokens} tokens ` +
          `(fields: ${block.truncatedFields.join(', ')}); the full state is in getState()`,
      );
    }
    const lean = config.lean;
    const request = {
      systemPrompt,
      history,
      tools,
      ragContext,
      ...options,
      turn: turns.turns,
      memory: [
        entityStateMemoryBlock(
          persisted,
          block.message ? String(block.message.content) : '',
          this.shortenedStateBlocks,
          config.stateMaxTokens,
          config.memoryRole,
        ),
      ],
      memoryShare: config.memoryShare,
      cutBackRatio: config.cutBackRatio,
      keepFirstShare: config.keepFirstShare,
      ...(lean
        ? {
            startIndex: recentTurnsStart(turns, config.recentTurns),
            startReason: `older than the last ${config.recentTurns} turn(s) (lean mode)`,
          }
        : {}),
      extra: { entities: entityStats(persisted, block, this.options.extractor, this.lastError, lean, pending) },
    };
    const composed =
      this.recall && recalled
        ? this.recall.layout(this.base.composer, request, recalled)
        : this.base.composer.layout(request);
    if (!preview) {
      this.base.composer.commit(composed, request.turn);
      this.recall?.committed(this.base.composer, composed, request.turn);
    }
    return composed.payload;
  }
}
