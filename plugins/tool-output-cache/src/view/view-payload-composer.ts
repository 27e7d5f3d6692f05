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
import {
  type ComposedPayload,
  type ComposeRequest,
  contentText,
  type LighterForm,
  type LighterForms,
  PayloadComposer,
} from '@ctxkit/core/strategy-kit';

import {
  COMPACT_DEFINITION,
  TOOL_OUTPUT_CACHE_DEFINITION,
  TOOL_OUTPUT_CACHE_GREP_DEFINITION,
} from '../cache/cache-tools';
import { EXPAND_TOOLS_MAX_ROOM_SHARE, OfferedToolLists } from '../cache/offered-tools';
import { compactionMemory, compactionReason } from '../compaction/compaction-memory';
import { refsIn } from '../payload/payload-refs';
import type { ResolvedToolOutputCacheStrategyConfig } from '../tool-output-cache-strategy-config';
import { lighterFormAt, type LighterFormOptions, recordLighterForms } from './lighter-form';
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
  final: ComposedPayload;
  /** The view as the payload was laid out from: with the lighter forms the layout used. */
  messages: ReadonlyArray<ChatMessage>;
  /** Positions of the lighter forms the layout used. */
  lightenedAt: ReadonlyArray<number>;
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

const REF_IN_TEXT = /to_[0-9a-f]{32}/;

/**
 * Composes a session's payloads from its working view through core's {@link PayloadComposer}: the
 * view laid over the caller's history is what the composer selects from, the compaction's retain +
 * summary its memory block, each older output's placeholder or micro-compact line the lighter form the
 * composer uses under pressure (it also decides whether the expand and grep definitions are offered). One
 * layout, committed unless it is a preview's. Each payload is then read whole for the refs it names; the
 * kernel's clients check it against their provider's rules, as they do every strategy's payload.
 */
export class ViewPayloadComposer {
  private readonly cacheDefinitions: ReadonlyArray<ToolDefinition> = [
    TOOL_OUTPUT_CACHE_DEFINITION,
    TOOL_OUTPUT_CACHE_GREP_DEFINITION,
  ];
  /** The payloads' tool lists, kept while the caller's tools are the same objects. */
  private readonly toolLists = new OfferedToolLists();
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
    // One tool list per choice, the same from call to call, so that its count is cached.
    const tools = (offerCache: boolean): ToolDefinition[] =>
      this.toolLists.list({ callerTools: call.tools, own, offer: offerCache ? own : alwaysOffered }, offerCache);
    const toolOutputCache: Record<string, unknown> = {
      enabled: cacheOn,
      budgetTokens: this.options.toolOutputBudget,
      newlyCached: 0,
      underPressure: false,
      toolsOffered: false,
    };
    const extra: Record<string, unknown> = { toolOutputCache, compaction: this.options.compactionStats() };
    const unlightened = aligned.messages;
    const lighter = this.lighterForms(view, prepared, cacheOn ? tools(true) : undefined);
    const request: ComposeRequest = {
      systemPrompt: call.systemPrompt,
      history: unlightened,
      tools: tools(false),
      ragContext: call.ragContext,
      ...call.options,
      memory,
      startIndex: aligned.startIndex,
      ...(state ? { startReason: compactionReason(state) } : {}),
      reductions: carried,
      // The view's reductions and the lighter forms are reported for the messages the payload keeps, never for one it
      // leaves out (that one is reported as dropped only).
      keptReductions: (kept, lightened) => {
        recordLighterForms(lightened, log);
        return [...prepared.keptBefore(kept), ...log.list(kept)];
      },
      extra,
      turn: call.turn,
      cutBackRatio: config.cutBackRatio,
      keepFirstShare: config.keepFirstShare,
      lighter,
    };
    const final = composer.layout(request);
    const lightened = final.lightened!;
    toolOutputCache.newlyCached = view.takeNewlyCached();
    toolOutputCache.underPressure = lightened.pressure;
    toolOutputCache.toolsOffered = lightened.toolsOffered;
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
    const lightenedAt = lightened.forms.map((form) => form.index);
    return { payload, prepared, final, messages: lightened.history, lightenedAt };
  }

  /**
   * The view's lighter forms for core's layout (`offering`: the tool list with the expand and grep definitions, while
   * the cache is on).
   */
  private lighterForms(
    view: WorkingView,
    prepared: PreparedView,
    offering: ReadonlyArray<ToolDefinition> | undefined,
  ): LighterForms {
    const { config, counter, composer } = this.options;
    const { aligned, region, protectFrom } = prepared;
    const unlightened = aligned.messages;
    const formOptions = (showRefs: boolean): LighterFormOptions => ({
      tokensAt: (index) => composer.ledger.tokensAt(unlightened, index),
      tokensOf: (message) => counter.countMessage(message),
      microCompact: config.microCompact.enabled
        ? { minContentLength: config.microCompact.minContentLength }
        : undefined,
      showRefs,
      withContent: (message, content) => view.withContent(message, content),
    });
    const named = [formOptions(false), formOptions(true)] as const;
    return {
      from: region,
      protectFrom,
      all: region > aligned.startIndex,
      formAt: (messages, index, showRefs) => lighterFormAt(messages, index, named[showRefs ? 1 : 0]),
      everyForm: (messages, showRefs) => view.everyLighterForm(messages, region, protectFrom, named[showRefs ? 1 : 0]),
      ...(this.options.restored.size > 0 ? { keepWhole: (index: number) => view.keepsWhole(index) } : {}),
      ...(offering
        ? {
            expandTools: {
              offering,
              tokens: counter.countTools(this.cacheDefinitions),
              maxRoomShare: EXPAND_TOOLS_MAX_ROOM_SHARE,
              fromStart:
                config.toolOutputCache.offerTools === 'always' ||
                prepared.hidesOutput ||
                aligned.memory.some((message) => REF_IN_TEXT.test(contentText(message.content))),
              hides: (message: ChatMessage) => view.hides(message),
            },
          }
        : {}),
    };
  }
}
