import type { ChatMessage, ToolCall } from '@ctxkit/core';

/** A tool call for test histories. */
export function call(id: string, name = 'execute_bash', args = '{}'): ToolCall {
  return { id, type: 'function', function: { name, arguments: args } };
}

/** One tool exchange: the assistant's call and its result. */
export function exchange(id: string, output: string, name = 'execute_bash'): ChatMessage[] {
  return [
    { role: 'assistant', content: null, tool_calls: [call(id, name)] },
    { role: 'tool', tool_call_id: id, content: output },
  ];
}

/** A text of about `lines` lines of 60 characters, distinct per `label`. */
export function output(label: string, lines: number): string {
  return Array.from({ length: lines }, (_, index) => `${label} line ${index} ${'abcdefghij'.repeat(5)}`).join('\n');
}
