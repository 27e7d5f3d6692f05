import { type ChatMessage } from '@ctxkit/core';
import { groupToolCalls } from '@ctxkit/core/strategy-kit';

/**
 * Where the current turn starts (`messages.length`: nothing to protect), whose outputs the budget never replaces (an
 * expansion is not made another ref): the newest user message from `from` on; when that is `from` (one long turn), the
 * newest model step; without one, a trailing tool exchange still waiting for results, else the newest model step.
 */
export function currentTurnStart(messages: ReadonlyArray<ChatMessage>, from = 0): number {
  const length = messages.length;
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
