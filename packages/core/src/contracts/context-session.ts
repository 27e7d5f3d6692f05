import type { ChatMessage } from './chat-message';
import type { ComposeOptions, ContextManagerCapabilities, IContextManager } from './context-manager';
import type { Pin, PinOptions } from './pin';
import type { ReductionEpoch, ReductionPreview, UndoResult } from './reduction-epoch';
import type { ToolDefinition } from './tool-definition';

/**
 * One conversation of a loaded agent, as `agent.forSession(id)` returns it: the strategy's context
 * manager (its two methods and the optional capabilities it has) plus the session controls every
 * session offers, whatever its strategy. See docs/14-controlling-what-survives.md.
 */
export interface ContextSession
  extends IContextManager, Omit<ContextManagerCapabilities, 'epochs' | 'preview' | 'undo'> {
  /** The session id. */
  readonly sessionId: string;
  /** The session's undoable reductions, oldest first; empty when its strategy records none. */
  epochs(): Promise<ReductionEpoch[]>;
  /**
   * What the next `composePayload` with these arguments would drop, fold, compact or trim, without doing it.
   * @throws CapabilityUnsupportedError (`CTXKIT_CAPABILITY_UNSUPPORTED`) when the strategy offers no preview
   */
  preview(
    systemPrompt: string,
    history: ChatMessage[],
    tools: ToolDefinition[],
    ragContext?: string,
    options?: ComposeOptions,
  ): Promise<ReductionPreview>;
  /**
   * Restores the state before `epochId` (undoing every later epoch with it). When the result carries a
   * `history`, continue the conversation with it (an undone compaction gives back the history it replaced).
   * @throws EpochNotFoundError (`CTXKIT_EPOCH_NOT_FOUND`) for an epoch the session does not have
   * @throws CapabilityUnsupportedError (`CTXKIT_CAPABILITY_UNSUPPORTED`) when the strategy offers no undo
   */
  undo(epochId: string): Promise<UndoResult>;
  /**
   * Pins a message or a text for the rest of the session: every payload shows it verbatim in the
   * pinned block right after the system prompt, whatever the strategy drops, summarizes or trims.
   * Pins live in the session's store (they survive a restart and are shared by every process).
   * Pinning what is already pinned returns the existing pin.
   * @param target the index of a message in the history the host sends (its text is captured by the
   *   first payload composed with a history that long), or a text to keep
   * @throws PinTargetError (`CTXKIT_PIN_TARGET_INVALID`) for an index that is not a non-negative integer, an empty text
   *   or label
   * @throws PinBudgetExceededError (`CTXKIT_PIN_BUDGET_EXCEEDED`) when a text pin would take the pins past their share
   *   of the budget
   */
  pin(target: number | string, options?: PinOptions): Promise<Pin>;
  /** Removes a pin; false when the session has no pin with that id. */
  unpin(pinId: string): Promise<boolean>;
  /** The session's pins, in the order they were added (declared pins first). */
  pins(): Promise<Pin[]>;
}
