import { hasCompactionHooks, type AssistantMessage, type CompactionCheckpoint, type TokenUsage } from '@ctxkit/core';
import { frozenMessage } from './frozen-message';
import type { RunState } from './run-state';

/**
 * The compaction hook points: after each model call (with its usage), after tool
 * execution (with the last usage) and once before the final return. When the strategy has
 * `checkCompaction` and returns a compacted history, the run continues with it (its messages frozen:
 * the kernel's own, or frozen copies of the strategy's).
 *
 * After a model call that asked for tools, the compacted history must still end with that
 * assistant message, or its results would become orphans: when the strategy left it out
 * (compaction strips a trailing `tool_calls`), it is appended again.
 * @returns true when the history was replaced
 */
export async function compactionStep(
  state: RunState,
  checkpoint: CompactionCheckpoint,
  usage: TokenUsage | undefined,
  pendingCalls?: AssistantMessage,
): Promise<boolean> {
  if (!hasCompactionHooks(state.manager)) return false;
  const result = await state.manager.checkCompaction(checkpoint, state.history.slice(), usage);
  if (!result.compacted || !result.messages) return false;
  const compacted = result.messages.map(frozenMessage);
  if (pendingCalls) {
    const last = compacted[compacted.length - 1];
    const ids = (message: AssistantMessage): string => (message.tool_calls ?? []).map((call) => call.id).join(',');
    if (!last || last.role !== 'assistant' || ids(last) !== ids(pendingCalls)) compacted.push(pendingCalls);
  }
  state.history = compacted;
  return true;
}
