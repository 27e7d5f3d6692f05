import type { ChatMessage } from '@ctxkit/core';

/**
 * The tool outputs the user took back from a trim (`undo` of a trim epoch), by tool call id: never a placeholder of the
 * tool output budget or of micro-compact `always`, and under pressure lightened only after every other older output, so
 * that they stay whole as long as the payload holds them.
 */
export class RestoredOutputs {
  private readonly ids = new Set<string>();

  get size(): number {
    return this.ids.size;
  }

  /** True when `message` is a tool result the user took back. */
  has(message: Readonly<ChatMessage>): boolean {
    return this.ids.size > 0 && message.role === 'tool' && this.ids.has(message.tool_call_id);
  }

  /** Restores the outputs of these tool calls. */
  add(toolCallIds: Iterable<string>): void {
    for (const id of toolCallIds) this.ids.add(id);
  }
}
