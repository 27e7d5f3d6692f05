import type { AssistantMessage } from '@ctxkit/core';
import { toAgentInputItems } from '@ctxkit/openai-agents';
import { type AgentOutputItem, type Model, type ModelRequest, type ModelResponse, Usage } from '@openai/agents';

/** What the model answers past the recording, so that every run ends. */
export const CLOSING_REPLY = 'Is there anything else I can help you with?';

/** The placeholder the tool output cache leaves for an output it does not show whole. */
export const TRIMMED_PLACEHOLDER = /\[tool output trimmed; ref=(to_[0-9a-f]{32})\]/;

/** The output the model read back with the strategy's `tool_output_cache` tool. */
export interface ReadBack {
  refId: string;
  callId: string;
  /** The model call (1-based) that asked for it. */
  request: number;
}

/**
 * An Agents SDK `Model` that replays a recorded agent: `startTurn(replies)` loads the recorded
 * assistant messages of one user turn and each call answers with the next one (tool calls included,
 * converted with `toAgentInputItems`). The recordings reuse call ids across turns, which the Agents
 * SDK would merge, so each call gets a fresh id; `recordedCallId` maps it back. A call past the
 * recording gets {@link CLOSING_REPLY}. Every request is recorded. The first time a request shows a
 * `[tool output trimmed; ref=…]` placeholder and offers `tool_output_cache`, the model reads that
 * output back with it, as a model that needs an old output again would, then goes on with the
 * recording.
 */
export class ReplayModel implements Model {
  readonly requests: ModelRequest[] = [];
  /** The output read back with `tool_output_cache`, once one was. */
  readBack: ReadBack | undefined;
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
    this.requests.push({
      ...request,
      input: structuredClone(request.input),
      tools: structuredClone(request.tools),
      signal: undefined,
    });
    const readBack = this.readBack === undefined ? this.trimmedOutputToRead(request) : undefined;
    if (readBack) {
      this.readBack = readBack;
      return {
        usage: new Usage(),
        output: [
          {
            type: 'function_call',
            callId: readBack.callId,
            name: 'tool_output_cache',
            arguments: JSON.stringify({ ref_id: readBack.refId, limit: 400 }),
            status: 'completed',
          },
        ],
      };
    }
    const next = this.pending.shift();
    if (!next)
      return {
        usage: new Usage(),
        output: [
          {
            type: 'message',
            role: 'assistant',
            status: 'completed',
            content: [{ type: 'output_text', text: CLOSING_REPLY }],
          },
        ],
      };
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

  /** The trimmed output a request shows while it offers `tool_output_cache`, if any. */
  private trimmedOutputToRead(request: ModelRequest): ReadBack | undefined {
    const offered = (request.tools as ReadonlyArray<{ name?: string }>).some(
      (tool) => tool.name === 'tool_output_cache',
    );
    const refId = offered ? TRIMMED_PLACEHOLDER.exec(JSON.stringify(request.input))?.[1] : undefined;
    return refId ? { refId, callId: 'read-back-1', request: this.requests.length } : undefined;
  }

  // eslint-disable-next-line require-yield
  async *getStreamedResponse(): AsyncIterable<never> {
    throw new Error('ReplayModel answers getResponse only.');
  }
}
