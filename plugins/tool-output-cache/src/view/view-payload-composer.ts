import {
  type ChatMessage,
  type ComposeOptions,
  type CtxkitEventBase,
  type ITokenCounter,
  type LLMPayload,
  type PayloadBudget,
  type ReductionRecord,
  safeEmit,
  type StrategyContext,
  type SystemMessage,
  type ToolDefinition,
} from '@ctxkit/core';
import { type ComposedPayload, PayloadComposer } from '@ctxkit/core/strategy-kit';

import {
  COMPACT_DEFINITION,
  TOOL_OUTPUT_CACHE_DEFINITION,
  TOOL_OUTPUT_CACHE_GREP_DEFINITION,
} from '../cache/cache-tools';
import { OfferedToolLists } from '../cache/offered-tools';
import { compactionMemory, compactionReason } from '../compaction/compaction-memory';
import { refsIn } from '../payload/payload-refs';
import type { ResolvedToolOutputCacheStrategyConfig } from '../tool-output-cache-strategy-config';
import { type FittedView, fitView } from './fit-view';
import type { RestoredOutputs } from './restored-outputs';
import type { PreparedView, WorkingView } from './working-view';

/** The arguments of one `composePayload` (or `preview`), with the turn they are composed at. */
export interface ComposeCall {
  systemPrompt: string;
  /** The system prompt as one message object (the same from call to call, so that its count is cached). */
  systemMessage: SystemMessage;
  tools: ReadonlyArray<ToolDefinition>;
  ragContext: string | undefined;
  options: ComposeOptions;
  turn: number;
}

/** A payload composed from a working view, with what it was composed from. */
export interface ComposedView {
  payload: LLMPayload;
  prepared: PreparedView;
  fitted: FittedView;
  final: ComposedPayload;
}

/** What a {@link ViewPayloadComposer} works with. */
export interface ViewPayloadComposerOptions {
  config: ResolvedToolOutputCacheStrategyConfig;
  /** The session's owner, events and model client (`compact` is offered only with a model to write the summary). */
  context: Pick<StrategyContext, 'events' | 'llm'>;
  /** The strategy's composer (see `StrategyFoundation`): every payload is laid out and committed by it. */
  composer: PayloadComposer;
  counter: ITokenCounter;
  budget: PayloadBudget;
  /** Token budget of all tool outputs (`stats.extra.toolOutputCache.budgetTokens`). */
  toolOutputBudget: number;
  /** Outputs taken back from a trim: kept whole while they fit. */
  restored: RestoredOutputs;
  /** `stats.extra.compaction` of the payload. */
  compactionStats(): Record<string, unknown>;
  eventBase(turn: number): CtxkitEventBase;
}

/**
 * Composes a session's payloads from its working view through core's {@link PayloadComposer}: the
 * view laid over the caller's history is what the composer selects from, the compaction's retain +
 * summary its memory block; {@link fitView} decides which older outputs give way and which of the
 * strategy's tools are offered, on probe layouts (the one sent is committed). Each payload is then read
 * whole for the refs it names; the kernel's clients check it against their provider's rules, as they
 * do every strategy's payload.
 */
export class ViewPayloadComposer {
  private readonly cacheDefinitions: ReadonlyArray<ToolDefinition> = [
    TOOL_OUTPUT_CACHE_DEFINITION,
    TOOL_OUTPUT_CACHE_GREP_DEFINITION,
  ];
  /** The payloads' tool lists, kept while the caller's tools are the same objects. */
  private readonly toolLists = new OfferedToolLists();
  /** Where the previous payload's replacements under pressure ended (the message there, unrelieved), while it holds. */
  private relieved: { through: number; message: ChatMessage } | undefined;
  /** One system message object per prompt, so that its count is cached. */
  private systemMessage: SystemMessage = { role: 'system', content: '' };

  constructor(private readonly options: ViewPayloadComposerOptions) {}

  /**
   * The system prompt as one message object: the same object while the prompt is the same. `keep`:
   * it is the session's from now on (a preview does not change it).
   */
  systemMessageOf(systemPrompt: string, keep: boolean): SystemMessage {
    if (this.systemMessage.content === systemPrompt) return this.systemMessage;
    const message: SystemMessage = { role: 'system', content: systemPrompt };
    if (keep) this.systemMessage = message;
    return message;
  }

  /** Tokens of a payload's system prompt, tools and dynamic context: what a compaction can never remove. */
  fixedTokens(
    systemMessage: SystemMessage,
    tools: ReadonlyArray<ToolDefinition>,
    ragContext: string | undefined,
  ): number {
    const { counter } = this.options;
    return (
      counter.countMessage(systemMessage) + counter.countTools(tools) + (ragContext ? counter.count(ragContext) : 0)
    );
  }

  /**
   * The outputs that stay replaced under pressure: those the previous payload replaced, while the view still holds
   * them.
   */
  private heldRelief(messages: ReadonlyArray<ChatMessage>): { holdThrough?: number } {
    const held = this.relieved;
    return held !== undefined && messages[held.through - 1] === held.message ? { holdThrough: held.through } : {};
  }

  /**
   * The payload of `view` (synced with `history`). A preview emits no event and is not committed (the
   * next payload builds on the one sent before it).
   */
  async compose(
    history: ReadonlyArray<ChatMessage>,
    call: ComposeCall,
    view: WorkingView,
    preview: boolean,
  ): Promise<ComposedView> {
    const { config, context, counter, budget, composer } = this.options;
    const state = view.currentLayout.state;
    // Collapsing older results reads the whole history: the whole view is laid out for it.
    const prepared = await view.prepare(budget.available, call.options.collapseOlderToolResults === true);
    const { aligned, log } = prepared;
    const memory =
      state && aligned.memory.length > 0
        ? [compactionMemory(state, aligned.memory, aligned.startIndex, counter, config.memoryRole)]
        : [];
    // The caller's message the carried user message stands in for is reported whether or not the window keeps it.
    const carried: ReductionRecord[] =
      state && aligned.displaced !== undefined
        ? [
            {
              action: 'compacted',
              from: aligned.displaced,
              to: aligned.displaced + 1,
              messages: 1,
              reason: compactionReason(state),
              recoverableFrom: 'transcript',
              refs: [state.transcriptRef],
            },
          ]
        : [];
    const cacheOn = config.toolOutputCache.enabled;
    // `compact` needs a model to write the summary: without one every call of it could only fail.
    const alwaysOffered = config.compaction.enabled && context.llm ? [COMPACT_DEFINITION] : [];
    const own = [...(cacheOn ? this.cacheDefinitions : []), ...alwaysOffered];
    const extra: Record<string, unknown> = {};
    // One tool list per choice, the same from probe to probe and from call to call, so that its count is cached.
    const tools = (offerCache: boolean): ToolDefinition[] =>
      this.toolLists.list({ callerTools: call.tools, own, offer: offerCache ? own : alwaysOffered }, offerCache);
    // A layout of `messages`, not committed (a probe, or the preview's payload).
    const layout = (messages: ReadonlyArray<ChatMessage>, offerCache: boolean): ComposedPayload =>
      composer.layout({
        systemPrompt: call.systemPrompt,
        history: messages,
        tools: tools(offerCache),
        ragContext: call.ragContext,
        ...call.options,
        memory,
        startIndex: aligned.startIndex,
        ...(state ? { startReason: compactionReason(state) } : {}),
        reductions: carried,
        // The view's and the relief's reductions are reported for the messages the payload keeps, never for one it
        // leaves out (that one is reported as dropped only).
        keptReductions: (kept) => [...prepared.keptBefore(kept), ...log.list(kept)],
        extra,
        turn: call.turn,
        cutBackRatio: config.cutBackRatio,
        keepFirstShare: config.keepFirstShare,
      });
    const fitted = fitView({
      aligned,
      region: prepared.region,
      protectFrom: prepared.protectFrom,
      hidesOutput: prepared.hidesOutput,
      log,
      cacheToolTokens: cacheOn ? counter.countTools(this.cacheDefinitions) : undefined,
      probe: layout,
      tokensAt: (messages, index) => composer.ledger.tokensAt(messages, index),
      tokensOf: (message) => counter.countMessage(message),
      hides: (message) => view.hides(message),
      withContent: (message, content) => view.withContent(message, content),
      relieveAll: (messages, region, protectFrom, options, relieveLog) =>
        view.relieveAll(messages, region, protectFrom, options, relieveLog),
      microCompact: config.microCompact.enabled
        ? { minContentLength: config.microCompact.minContentLength }
        : undefined,
      offerCacheToolsAlways: config.toolOutputCache.offerTools === 'always',
      ...(config.cutBackRatio < 1
        ? {
            cutBackRatio: config.cutBackRatio,
            keepFirstShare: config.keepFirstShare,
            ...this.heldRelief(aligned.messages),
          }
        : {}),
      ...(this.options.restored.size > 0 ? { keepWhole: (index: number) => view.keepsWhole(index) } : {}),
      // Without dynamic context or a memory block the room is the budget less the system prompt and the tools, as the
      // composer counts them.
      ...(!call.ragContext && memory.length === 0 && call.options.collapseOlderToolResults !== true
        ? {
            room: (offerCache: boolean) =>
              budget.available - counter.countMessage(call.systemMessage) - counter.countTools(tools(offerCache)),
          }
        : {}),
    });

    if (!preview && config.cutBackRatio < 1) {
      const through = fitted.relievedThrough;
      this.relieved =
        through !== undefined && through > 0 ? { through, message: aligned.messages[through - 1]! } : undefined;
    }
    const toolOutputCache: Record<string, unknown> = {
      enabled: cacheOn,
      budgetTokens: this.options.toolOutputBudget,
      newlyCached: view.takeNewlyCached(),
      underPressure: fitted.underPressure,
      toolsOffered: fitted.offerCache,
    };
    Object.assign(extra, { toolOutputCache, compaction: this.options.compactionStats() });
    // The last probe is the payload when it was laid out from the same messages and tools.
    const { last } = fitted;
    const final =
      last && last.messages === fitted.messages && last.offerCache === fitted.offerCache
        ? last.composed
        : layout(fitted.messages, fitted.offerCache);
    if (!preview) composer.commit(final, call.turn);
    const payload = final.payload;
    toolOutputCache.refsInPayload = refsIn(payload.messages);
    if (final.memory[0] === 'left-out' && !preview) {
      safeEmit(context.events, 'strategy-warning', {
        ...this.options.eventBase(call.turn),
        message:
          'The current turn does not fit beside the compaction summary; the summary was left out of this payload ' +
          '(it stays in the saved transcript).',
      });
    }
    return { payload, prepared, fitted, final };
  }
}
