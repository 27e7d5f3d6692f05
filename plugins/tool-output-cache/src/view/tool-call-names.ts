import type { ChatMessage } from '@ctxkit/core';

/**
 * The tool name the tool message at `index` answers, from the call it answers: results pair with the
 * calls of the assistant message right before their run of tool messages, by position within that
 * group (so reused call ids resolve to the right call). `'unknown'` when no call matches, or when the
 * run reaches `from` (the first position of the view) without an assistant message. Costs O(the run).
 */
export function toolNameAt(messages: ReadonlyArray<ChatMessage>, index: number, from = 0): string {
  let start = index;
  while (start > from && messages[start - 1]!.role === 'tool') start--;
  const owner = start > from ? messages[start - 1] : undefined;
  if (owner?.role !== 'assistant') return 'unknown';
  const pending = (owner.tool_calls ?? []).map((call) => ({ id: call.id, name: call.function.name }));
  let name = 'unknown';
  for (let position = start; position <= index; position++) {
    const message = messages[position]!;
    if (message.role !== 'tool') return 'unknown';
    const at = pending.findIndex((call) => call.id === message.tool_call_id);
    if (at === -1) {
      name = 'unknown';
      continue;
    }
    name = pending[at]!.name;
    pending.splice(at, 1);
  }
  return name;
}
