import type { ChatMessage } from './chat-message';
import type { LLMPayload } from './llm-payload';
import type { ReductionEpoch, ReductionPreview, UndoResult } from './reduction-epoch';
import type { TokenUsage } from './token-usage';
import type { ToolDefinition } from './tool-definition';

/**
 * The pluggable context strategy. The agent kernel asks it for the payload to send and
 * tells it when a turn is over. These two methods are the whole required surface; the optional
 * capabilities ({@link ContextManagerCapabilities}) are checked with the type guards below.
 *
 * Invariants every implementation keeps (checked by `@ctxkit/core/testing`): the payload is within
 * budget; tool-call groups are kept or dropped whole; the newest user message is present; inputs
 * are never mutated; every reduction is reported in `stats` and as an event; same inputs and state
 * give the same payload.
 */
export interface IContextManager extends ContextManagerCapabilities {
  /**
   * Builds the payload to send.
   * @param systemPrompt immutable system instructions (never dropped or altered)
   * @param history the raw conversation, oldest first (never mutated)
   * @param tools tool definitions available now (always sent complete)
   * @param ragContext optional retrieved knowledge (dynamic context)
   * @param options how the host wants this payload shaped (e.g. small windows); strategies that do not
   *   understand an option ignore it
   * @throws BudgetExceededError (`CTXKIT_BUDGET_EXCEEDED`) when system + tools alone exceed the budget
   */
  composePayload(
    systemPrompt: string,
    history: ChatMessage[],
    tools: ToolDefinition[],
    ragContext?: string,
    options?: ComposeOptions,
  ): Promise<LLMPayload>;

  /** Called after each finished turn with the whole history; background work starts here. */
  onTurnComplete(newHistory: ChatMessage[]): Promise<void>;
}

/** How the host (the agent kernel) wants one payload shaped, beside the budget. */
export interface ComposeOptions {
  /**
   * Send tool results older than the newest step as one-line summaries (`Read: main.go (500 lines,
   * Go)`), for small context windows. The history itself keeps the full results. @default false
   */
  collapseOlderToolResults?: boolean;
  /**
   * `false` for a composition no model call receives: an adapter reading the session's window, as
   * the OpenAI Agents session's `getItems` does before its input filter composes each call. The
   * strategy composes it as any other; the session traces it as a `ctxkit.read_window` span rather
   * than a `ctxkit.compose` one, in no metric and in no session-trace entry, so that compose spans,
   * metrics and the trace count what models were sent. @default true
   */
  sent?: boolean;
}

/** A tool a strategy contributes to the agent (definition plus executor). */
export interface ContributedTool {
  definition: ToolDefinition;
  /** Runs the tool; returns the text given back to the model as the tool result. */
  execute(args: unknown, context: ToolExecutionContext): Promise<string>;
}

/** What a tool executor receives besides its arguments. */
export interface ToolExecutionContext {
  agentId: string;
  sessionId: string;
  toolCallId: string;
  signal?: AbortSignal;
  /** Token budget a tool output may use; undefined when unknown. */
  toolOutputTokenLimit?: number;
}

/** Why a compaction hook is called. */
export type CompactionCheckpoint = 'after-llm-call' | 'after-tools' | 'before-return';

/** Result of a compaction hook. */
export interface CompactionHookResult {
  compacted: boolean;
  /** The compacted history, when compaction happened; callers continue with it. */
  messages?: ChatMessage[];
  reason?: string;
}

/**
 * Optional capabilities a strategy may offer on top of {@link IContextManager}. The kernel checks
 * for each one with the type guards below.
 */
export interface ContextManagerCapabilities {
  /**
   * True when the strategy fits tool outputs to the budget itself and keeps every output whole and
   * recoverable (a cache ref the model can expand): an agent loop then leaves outputs uncut, beyond
   * its memory-protection caps, instead of truncating them to the budget on its own.
   */
  readonly truncatesToolOutputs?: boolean;
  /** Tools the strategy contributes (expand, grep, compact ...). */
  contributedTools?(): ContributedTool[];
  /** Compaction hook points. */
  checkCompaction?(
    checkpoint: CompactionCheckpoint,
    history: ReadonlyArray<ChatMessage>,
    usage?: TokenUsage,
  ): Promise<CompactionHookResult>;
  /** Resolves when background work (summaries, extraction) has settled. */
  whenIdle?(): Promise<void>;
  /**
   * The session's reductions that changed its state and can be undone (folds, extractions,
   * compactions, trims to a placeholder), oldest first. See docs/14-controlling-what-survives.md.
   */
  epochs?(): Promise<ReductionEpoch[]>;
  /**
   * What the next `composePayload` with these arguments (and the reduction it would start) would drop,
   * fold, compact or trim, computed without doing it: no state stored, no event, no model call.
   */
  preview?(
    systemPrompt: string,
    history: ChatMessage[],
    tools: ToolDefinition[],
    ragContext?: string,
    options?: ComposeOptions,
  ): Promise<ReductionPreview>;
  /**
   * Restores the state the session had before `epochId` (the summary, the entity state, the history
   * before a compaction), undoing every later epoch with it; the next payload shows the restored state.
   * @throws EpochNotFoundError (`CTXKIT_EPOCH_NOT_FOUND`) when the session has no such epoch
   */
  undo?(epochId: string): Promise<UndoResult>;
  /** Releases timers and handles. Safe to call more than once. */
  dispose?(): Promise<void> | void;
}

/**
 * Whether the strategy declares that it fits tool outputs itself (see {@link
 * ContextManagerCapabilities.truncatesToolOutputs}).
 */
export function truncatesToolOutputs(manager: IContextManager): boolean {
  return (manager as ContextManagerCapabilities).truncatesToolOutputs === true;
}

/** The optional methods of {@link ContextManagerCapabilities}. */
type CapabilityMethod = 'contributedTools' | 'checkCompaction' | 'whenIdle' | 'dispose';

/** A type guard: whether a strategy implements the optional method `name`. */
function capabilityGuard<K extends CapabilityMethod>(
  name: K,
): (manager: IContextManager) => manager is IContextManager & Required<Pick<ContextManagerCapabilities, K>> {
  return (manager): manager is IContextManager & Required<Pick<ContextManagerCapabilities, K>> =>
    typeof (manager as ContextManagerCapabilities)[name] === 'function';
}

/** Whether the strategy offers tools of its own to the model (`contributedTools`). */
export const hasContributedTools = capabilityGuard('contributedTools');

/** Whether the strategy can compact the history on the host's request (`checkCompaction`). */
export const hasCompactionHooks = capabilityGuard('checkCompaction');

/** Whether the strategy does background work a host can wait for (`whenIdle`). */
export const hasWhenIdle = capabilityGuard('whenIdle');

/** Whether the strategy holds timers or handles to release (`dispose`). */
export const hasDispose = capabilityGuard('dispose');
