import {
  type AssistantMessage,
  type ChatMessage,
  type CompactionCheckpoint,
  hasCompactionHooks,
  type IContextManager,
  type TokenUsage,
} from '@ctxkit/core';

import { frozenMessage } from './frozen-message';

/**
 * The compaction hook points: after each model call (with its usage), after tool
 * execution (with the last usage) and once before the final return. When the strategy has
 * `checkCompaction` and returns a compacted history, the run continues with it (its messages frozen:
 * the kernel's own, or frozen copies of the strategy's).
 *
 * After a model call that asked for tools, the compacted history must still end with that
 * assistant message, or its results would become orphans: when the strategy left it out
 * (compaction strips a trailing `tool_calls`), it is appended again.
 * @returns the history to continue from (its messages frozen) when the strategy compacted, else `undefined`
 */
export async function compactionStep(
  manager: IContextManager,
  history: readonly ChatMessage[],
  checkpoint: CompactionCheckpoint,
  usage: TokenUsage | undefined,
  pendingCalls?: AssistantMessage,
): Promise<ChatMessage[] | undefined> {
  if (!hasCompactionHooks(manager)) return undefined;
  const result = await manager.checkCompaction(checkpoint, history.slice(), usage);
  if (!result.compacted || !result.messages) return undefined;
  const compacted = result.messages.map(frozenMessage);
  if (pendingCalls) {
    const last = compacted[compacted.length - 1];
    const ids = (message: AssistantMessage): string => (message.tool_calls ?? []).map((call) => call.id).join(',');
    if (!last || last.role !== 'assistant' || ids(last) !== ids(pendingCalls)) compacted.push(pendingCalls);
  }
  return compacted;
}
