import type { ChatMessage } from '@ctxkit/core';

/** Outputs the user took back from a trim, by tool call id: never replaced up front, lightened last under pressure. */
export class RestoredOutputs {
  private readonly ids = new Set<string>();

  get size(): number {
    return this.ids.size;
  }

  has(message: Readonly<ChatMessage>): boolean {
    return this.ids.size > 0 && message.role === 'tool' && this.ids.has(message.tool_call_id);
  }

  add(toolCallIds: Iterable<string>): void {
    for (const id of toolCallIds) this.ids.add(id);
  }
}
