import { type ChatMessage } from '@ctxkit/core';
import { groupToolCalls } from '@ctxkit/core/strategy-kit';

/**
 * Where the current turn of a view starts: the tool outputs from this position on are never replaced
 * by the `[tool output trimmed; ref=…]` placeholder of the tool output budget, so that an output the
 * model just received (the answer of a `tool_output_cache` expansion above all) reaches it as text
 * and is not turned into another ref to expand. `messages` is the view laid over the caller's
 * history; only positions from `from` on are sent (a compaction's retain + summary stand for those
 * before). The current turn is everything after the newest user message; in a long single-turn agent
 * run (one user message, then many model steps, the rule by which a compaction keeps its last steps)
 * it is the newest model step: the newest assistant message and its results. Without any user
 * message it is the trailing tool exchange still waiting for results, else the newest model step.
 * Returns `messages.length` when there is nothing to protect. Costs O(the current turn).
 */
export function currentTurnStart(messages: ReadonlyArray<ChatMessage>, from = 0): number {
  const length = messages.length;
  let lastUser = -1;
  for (let index = length - 1; index >= from; index--) {
    if (messages[index]!.role === 'user') {
      lastUser = index;
      break;
    }
  }
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
