import type { AssistantMessage } from '@ctxkit/core';
import { toAgentInputItems } from '@ctxkit/openai-agents';
import { Usage, type AgentOutputItem, type Model, type ModelRequest, type ModelResponse } from '@openai/agents';

/** What the model answers past the recording, so that every run ends. */
export const CLOSING_REPLY = 'Is there anything else I can help you with?';

/**
 * An Agents SDK `Model` that replays a recorded agent: `startTurn(replies)` loads the recorded
 * assistant messages of one user turn and each call answers with the next one (tool calls included,
 * converted with `toAgentInputItems`). The recordings reuse call ids across turns, which the Agents
 * SDK would merge, so each call gets a fresh id; `recordedCallId` maps it back. A call past the
 * recording gets {@link CLOSING_REPLY}. Every request is recorded.
 */
export class ReplayModel implements Model {
  readonly requests: ModelRequest[] = [];
  private readonly original = new Map<string, string>();
  private pending: AssistantMessage[] = [];
  private calls = 0;

  /** Loads the recorded answers of the next turn. */
  startTurn(replies: readonly AssistantMessage[]): void {
    this.pending = replies.map((reply) => structuredClone(reply));
  }

  /** The recorded call id of a call id this model gave out. */
  recordedCallId(callId: string): string {
    return this.original.get(callId) ?? callId;
  }

  async getResponse(request: ModelRequest): Promise<ModelResponse> {
    this.requests.push({ ...request, input: structuredClone(request.input), tools: structuredClone(request.tools), signal: undefined });
    const next = this.pending.shift();
    if (!next) return { usage: new Usage(), output: [{ type: 'message', role: 'assistant', status: 'completed', content: [{ type: 'output_text', text: CLOSING_REPLY }] }] };
    const reply: AssistantMessage = { ...next };
    if (reply.tool_calls) {
      reply.tool_calls = reply.tool_calls.map((call) => {
        const id = `${call.id}-${++this.calls}`;
        this.original.set(id, call.id);
        return { ...call, id };
      });
    }
    return { usage: new Usage(), output: toAgentInputItems([reply]) as AgentOutputItem[] };
  }

  // eslint-disable-next-line require-yield
  async *getStreamedResponse(): AsyncIterable<never> {
    throw new Error('ReplayModel answers getResponse only.');
  }
}
