import {
  type ChatMessage,
  type ComposeOptions,
  type ReductionRecord,
  type StrategyContext,
  type SystemMessage,
  type ToolDefinition,
} from '@ctxkit/core';
import {
  type ComposedPayload,
  type ComposeRequest,
  contentText,
  type LighterForms,
  type StrategyFoundation,
} from '@ctxkit/core/strategy-kit';

import {
  COMPACT_DEFINITION,
  TOOL_OUTPUT_CACHE_DEFINITION,
  TOOL_OUTPUT_CACHE_GREP_DEFINITION,
} from '../cache/cache-tools';
import { EXPAND_TOOLS_MAX_ROOM_SHARE, OfferedToolLists } from '../cache/offered-tools';
import { compactionMemory, compactionReason } from '../compaction/compaction-memory';
import type { Compactor } from '../compaction/compactor';
import type { StrategyEmit } from '../tool-output-cache-strategy';
import type { ResolvedToolOutputCacheStrategyConfig } from '../tool-output-cache-strategy-config';
import { lighterFormAt, type LighterFormOptions, recordLighterForms } from './lighter-form';
import type { PreparedView, WorkingView } from './working-view';

/** The arguments of one `composePayload` (or `preview`), with the turn they are composed at. */
export interface ComposeCall {
  systemPrompt: string;
  /** See {@link ViewPayloadComposer.systemMessageOf}. */
  systemMessage: SystemMessage;
  tools: ReadonlyArray<ToolDefinition>;
  ragContext: string | undefined;
  options: ComposeOptions;
  turn: number;
}

/** A payload composed from a working view, with what it was composed from. */
export interface ComposedView {
  prepared: PreparedView;
  final: ComposedPayload;
  /** The view the payload was laid out from, with the lighter forms the layout used. */
  messages: ReadonlyArray<ChatMessage>;
  /** Positions of the lighter forms the layout used. */
  lightenedAt: ReadonlyArray<number>;
}

const REF_IN_TEXT = /to_[0-9a-f]{32}/;
const CACHE_DEFINITIONS = [TOOL_OUTPUT_CACHE_DEFINITION, TOOL_OUTPUT_CACHE_GREP_DEFINITION] as const;

/**
 * A session's payloads, each one layout of core's `PayloadComposer` over the working view: retain + summary its memory
 * block, older outputs' placeholders its lighter forms (and core decides on offering the expand tools).
 */
export class ViewPayloadComposer {
  private readonly toolLists = new OfferedToolLists();
  private systemMessage: SystemMessage = { role: 'system', content: '' };

  constructor(
    private readonly config: ResolvedToolOutputCacheStrategyConfig,
    /** Its counter, budget and composer: every payload is laid out and committed by it. */
    private readonly foundation: StrategyFoundation,
    private readonly context: Pick<StrategyContext, 'llm'>,
    /** Gives the payload's `stats.extra.compaction`. */
    private readonly compactor: Pick<Compactor, 'stats'>,
    private readonly emit: StrategyEmit,
  ) {}

  /** The system prompt as one message object, the same while the prompt is (counted once); `keep`: not a preview. */
  systemMessageOf(systemPrompt: string, keep: boolean): SystemMessage {
    if (this.systemMessage.content === systemPrompt) return this.systemMessage;
    const message: SystemMessage = { role: 'system', content: systemPrompt };
    if (keep) this.systemMessage = message;
    return message;
  }

  /** Tokens of a payload's system prompt, tools and dynamic context: what a compaction can never remove. */
  fixedTokens(call: Pick<ComposeCall, 'systemMessage' | 'tools' | 'ragContext'>): number {
    const { counter } = this.foundation;
    const rag = call.ragContext ? counter.count(call.ragContext) : 0;
    return counter.countMessage(call.systemMessage) + counter.countTools(call.tools) + rag;
  }

  /** The payload of `view` (synced with the call's history). A preview emits no event and is not committed. */
  async compose(call: ComposeCall, view: WorkingView, preview: boolean): Promise<ComposedView> {
    const { config, context, foundation } = this;
    const { counter, composer } = foundation;
    const { state } = view.currentLayout;
    // Collapsing older results reads the whole history: the whole view is laid out for it.
    const prepared = await view.prepare(foundation.budget().available, call.options.collapseOlderToolResults === true);
    const { messages, memory, startIndex, displaced, region, protectFrom, log } = prepared;
    // The caller's message the carried user message stands in for is reported whether or not the window keeps it.
    const carried: ReductionRecord[] = [];
    if (state && displaced !== undefined)
      carried.push({
        action: 'compacted',
        from: displaced,
        to: displaced + 1,
        messages: 1,
        reason: compactionReason(state),
        recoverableFrom: 'transcript',
        refs: [state.transcriptRef],
      });
    const cacheOn = config.toolOutputCache.enabled;
    // `compact` needs a model to write the summary: without one every call of it could only fail.
    const alwaysOffered = config.compaction.enabled && context.llm ? [COMPACT_DEFINITION] : [];
    const own = [...(cacheOn ? CACHE_DEFINITIONS : []), ...alwaysOffered];
    // One tool list per choice, the same from call to call, so that its count is cached.
    const tools = (offerCache: boolean): ToolDefinition[] =>
      this.toolLists.list({ callerTools: call.tools, own, offer: offerCache ? own : alwaysOffered }, offerCache);
    const toolOutputCache: Record<string, unknown> = {
      enabled: cacheOn,
      budgetTokens: view.options.toolOutputBudget,
      newlyCached: 0,
      underPressure: false,
      toolsOffered: false,
    };
    // The view's lighter forms for core's layout, and the expand and grep definitions it may offer.
    const formOptions = (showRefs: boolean): LighterFormOptions => ({
      tokensAt: (index) => composer.ledger.tokensAt(messages, index),
      tokensOf: (message) => counter.countMessage(message),
      microCompact: config.microCompact.enabled
        ? { minContentLength: config.microCompact.minContentLength }
        : undefined,
      showRefs,
      withContent: (message, content) => view.cells.copies.withContent(message, content),
    });
    const named = [formOptions(false), formOptions(true)] as const;
    const lighter: LighterForms = {
      from: region,
      protectFrom,
      all: region > startIndex,
      formAt: (messages, index, showRefs) => lighterFormAt(messages, index, named[showRefs ? 1 : 0]),
      everyForm: (messages, showRefs) => view.everyLighterForm(messages, region, protectFrom, named[showRefs ? 1 : 0]),
      ...(view.restored.size > 0 ? { keepWhole: (index: number) => view.keepsWhole(index) } : {}),
      ...(cacheOn
        ? {
            expandTools: {
              offering: tools(true),
              tokens: counter.countTools(CACHE_DEFINITIONS),
              maxRoomShare: EXPAND_TOOLS_MAX_ROOM_SHARE,
              fromStart:
                config.toolOutputCache.offerTools === 'always' ||
                prepared.hidesOutput ||
                memory.some((message) => REF_IN_TEXT.test(contentText(message.content))),
              hides: (message: ChatMessage) => view.cells.hides(message),
            },
          }
        : {}),
    };
    const request: ComposeRequest = {
      systemPrompt: call.systemPrompt,
      history: messages,
      tools: tools(false),
      ragContext: call.ragContext,
      ...call.options,
      memory:
        state && memory.length > 0 ? [compactionMemory(state, memory, startIndex, counter, config.memoryRole)] : [],
      startIndex,
      ...(state ? { startReason: compactionReason(state) } : {}),
      reductions: carried,
      // Reported for the messages the payload keeps only: one it leaves out is reported as dropped.
      keptReductions: (kept, lightened) => {
        recordLighterForms(lightened, log);
        return [...prepared.keptBefore(kept), ...log.list(kept)];
      },
      extra: { toolOutputCache, compaction: this.compactor.stats() },
      turn: call.turn,
      cutBackRatio: config.cutBackRatio,
      keepFirstShare: config.keepFirstShare,
      lighter,
    };
    const final = composer.layout(request);
    const lightened = final.lightened!;
    toolOutputCache.newlyCached = view.cells.takeNewlyCached();
    toolOutputCache.underPressure = lightened.pressure;
    toolOutputCache.toolsOffered = lightened.toolsOffered;
    if (!preview) composer.commit(final, call.turn);
    toolOutputCache.refsInPayload = refsIn(final.payload.messages);
    if (final.memory[0] === 'left-out' && !preview)
      this.emit('strategy-warning', call.turn, {
        message:
          'The current turn does not fit beside the compaction summary; the summary was left out of this payload ' +
          '(it stays in the saved transcript).',
      });
    return { prepared, final, messages: lightened.history, lightenedAt: lightened.forms.map((form) => form.index) };
  }
}

/** Tool messages of `messages` that carry a ref (`stats.extra.toolOutputCache.refsInPayload`). */
function refsIn(messages: ReadonlyArray<Readonly<ChatMessage>>): number {
  let refs = 0;
  for (const message of messages) if (message.role === 'tool' && message.output_ref) refs++;
  return refs;
}
