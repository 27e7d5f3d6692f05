import type { ChatMessage, ToolMessage } from '../contracts/chat-message';
import type { MessageGroup } from './message-group';

/**
 * Groups the message at `start` with what belongs to it and returns the unit. An assistant message
 * with tool_calls takes the tool messages that follow it directly, matching each result to a call
 * by position: a result pairs with the first still-unanswered call of the same id. Real data reuses
 * call ids within one conversation (tau-bench), so pairing by id alone across the history is wrong;
 * pairing within the group is sound.
 */
export function groupAt(history: ReadonlyArray<Readonly<ChatMessage>>, start: number): MessageGroup {
  const message = history[start];
  if (message === undefined) throw new RangeError(`groupAt: index ${start} is outside the history`);
  switch (message.role) {
    case 'system':
      return { start, end: start + 1, kind: 'system' };
    case 'user':
      return { start, end: start + 1, kind: 'user' };
    case 'tool':
      return { start, end: start + 1, kind: 'orphan-tool' };
    case 'assistant': {
      const calls = message.tool_calls ?? [];
      if (calls.length === 0) return { start, end: start + 1, kind: 'assistant' };
      const pending = calls.map((call) => call.id);
      let end = start + 1;
      while (end < history.length && pending.length > 0) {
        const next = history[end]!;
        if (next.role !== 'tool') break;
        const at = pending.indexOf((next as ToolMessage).tool_call_id);
        if (at === -1) break;
        pending.splice(at, 1);
        end++;
      }
      if (pending.length > 0) return { start, end, kind: 'incomplete-tool-exchange', missingCallIds: pending };
      return { start, end, kind: 'tool-exchange' };
    }
    default:
      return { start, end: start + 1, kind: 'orphan-tool' };
  }
}

/**
 * Splits a history into atomic units, oldest first. O(n) and allocation-light; strategies that
 * walk back from the newest message use {@link groupEndingAt} instead to touch only what they keep.
 */
export function groupToolCalls(history: ReadonlyArray<Readonly<ChatMessage>>): MessageGroup[] {
  const groups: MessageGroup[] = [];
  let index = 0;
  while (index < history.length) {
    const group = groupAt(history, index);
    groups.push(group);
    index = group.end;
  }
  return groups;
}

/**
 * The unit that ends at `end` (exclusive), found by walking back over tool messages to their
 * assistant message. Costs O(size of the unit), so a walk back from the newest message touches only
 * the messages it visits.
 */
export function groupEndingAt(history: ReadonlyArray<Readonly<ChatMessage>>, end: number): MessageGroup {
  const last = history[end - 1];
  if (last === undefined) throw new RangeError(`groupEndingAt: index ${end} is outside the history`);
  if (last.role !== 'tool') {
    const group = groupAt(history, end - 1);
    // An assistant with tool_calls at the very end has no results after it.
    return group.end === end ? group : { ...group, end };
  }
  let start = end - 1;
  while (start > 0 && history[start - 1]!.role === 'tool') start--;
  const owner = start > 0 ? history[start - 1]! : undefined;
  if (owner?.role === 'assistant' && (owner.tool_calls?.length ?? 0) > 0) {
    const group = groupAt(history, start - 1);
    if (group.end === end) return group;
    if (group.end < end) {
      // Trailing tool messages after the owner's complete set answer nothing: the last one is an orphan.
      return { start: end - 1, end, kind: 'orphan-tool' };
    }
  }
  return { start: end - 1, end, kind: 'orphan-tool' };
}
