import { type ChatMessage } from '@ctxkit/core';
import { groupToolCalls } from '@ctxkit/core/strategy-kit';

/**
 * Where the current turn starts (`messages.length`: nothing to protect): its outputs are never replaced by the tool
 * output budget's placeholder, so that an output the model just received (an expansion above all) is not turned into
 * another ref to expand. It starts at the newest user message from `from` on; when it sits at `from` (a long
 * single-turn run), at the newest model step; without a user message, at the trailing tool exchange still waiting for
 * results, else the newest model step. Costs O(the current turn).
 */
export function currentTurnStart(messages: ReadonlyArray<ChatMessage>, from = 0): number {
  const length = messages.length;
  // The newest user message from `from` on (`from - 1`: none).
  let lastUser = length - 1;
  while (lastUser >= from && messages[lastUser]!.role !== 'user') lastUser--;
  if (lastUser > from) return lastUser;
  if (lastUser === from) {
    // One long turn: its newest model step, when it has more than one.
    const start = lastUser + 1;
    const steps = groupToolCalls(messages.slice(start)).filter(
      (group) => messages[start + group.start]!.role === 'assistant',
    );
    return steps.length > 1 ? start + steps[steps.length - 1]!.start : lastUser;
  }
  const groups = groupToolCalls(messages.slice(from));
  const last = groups[groups.length - 1];
  if (last && last.kind === 'incomplete-tool-exchange') return from + last.start;
  for (let index = length - 1; index >= from; index--) if (messages[index]!.role === 'assistant') return index;
  return length;
}
