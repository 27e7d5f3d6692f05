import type { ChatMessage } from '@ctxkit/core';

/**
 * The tool name of each tool message, from the call it answers. Pairs by
 * position within the owning assistant message's group, so reused call ids resolve to the right call.
 * Returns a map from index to name; `'unknown'` when no call matches.
 */
export function toolCallNames(messages: ReadonlyArray<ChatMessage>): Map<number, string> {
  const names = new Map<number, string>();
  let pending: Array<{ id: string; name: string }> = [];
  messages.forEach((message, index) => {
    if (message.role === 'assistant') {
      pending = (message.tool_calls ?? []).map((call) => ({ id: call.id, name: call.function.name }));
      return;
    }
    if (message.role !== 'tool') {
      pending = [];
      return;
    }
    const at = pending.findIndex((call) => call.id === message.tool_call_id);
    if (at === -1) {
      names.set(index, 'unknown');
      return;
    }
    names.set(index, pending[at]!.name);
    pending.splice(at, 1);
  });
  return names;
}
