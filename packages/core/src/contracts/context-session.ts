import type { ChatMessage } from './chat-message';
import type { ComposeOptions, ContextManagerCapabilities, IContextManager } from './context-manager';
import type { ReductionEpoch, ReductionPreview, UndoResult } from './reduction-epoch';
import type { ToolDefinition } from './tool-definition';

/**
 * One conversation of a loaded agent, as `agent.forSession(id)` returns it: the strategy's context
 * manager (its two methods and the optional capabilities it has) plus the session controls every
 * session offers, whatever its strategy. See docs/14-controlling-what-survives.md.
 */
export interface ContextSession extends IContextManager, Omit<ContextManagerCapabilities, 'epochs' | 'preview' | 'undo'> {
  /** The session id. */
  readonly sessionId: string;
  /** The session's undoable reductions, oldest first; empty when its strategy records none. */
  epochs(): Promise<ReductionEpoch[]>;
  /**
   * What the next `composePayload` with these arguments would drop, fold, compact or trim, without doing it.
   * @throws CapabilityUnsupportedError (`CTXKIT_CAPABILITY_UNSUPPORTED`) when the strategy offers no preview
   */
  preview(systemPrompt: string, history: ChatMessage[], tools: ToolDefinition[], ragContext?: string, options?: ComposeOptions): Promise<ReductionPreview>;
  /**
   * Restores the state before `epochId` (undoing every later epoch with it). When the result carries a
   * `history`, continue the conversation with it (an undone compaction gives back the history it replaced).
   * @throws EpochNotFoundError (`CTXKIT_EPOCH_NOT_FOUND`) for an epoch the session does not have
   * @throws CapabilityUnsupportedError (`CTXKIT_CAPABILITY_UNSUPPORTED`) when the strategy offers no undo
   */
  undo(epochId: string): Promise<UndoResult>;
}
