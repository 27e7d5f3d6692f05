import type { AgentOutputItem, Model, ModelRequest, ModelResponse, StreamEvent } from '@openai/agents';
import { Usage } from '@openai/agents';

/** One scripted answer: output items, or a function of the request that returns them. */
export type ScriptedAnswer = AgentOutputItem[] | ((request: ModelRequest) => AgentOutputItem[]);

/**
 * An Agents SDK `Model` for tests: each call records the request and answers with the next scripted
 * output (a list of output items), or a closing assistant message past the script; streamed or not.
 */
export class ScriptedAgentsModel implements Model {
  readonly requests: ModelRequest[] = [];
  private pending: ScriptedAnswer[] = [];

  /** Loads the answers of the next calls, one list of output items (or a function of the request) per call. */
  script(outputs: ScriptedAnswer[]): void {
    this.pending = outputs.map((output) => (typeof output === 'function' ? output : structuredClone(output)));
  }

  async getResponse(request: ModelRequest): Promise<ModelResponse> {
    const recorded = structuredClone({ ...request, signal: undefined, tracing: false }) as ModelRequest;
    this.requests.push(recorded);
    const next = this.pending.shift() ?? [assistantText('Anything else?')];
    return { usage: new Usage(), output: typeof next === 'function' ? next(recorded) : next };
  }

  /** The same answer as {@link getResponse}, streamed as one `response_done` event. */
  async *getStreamedResponse(request: ModelRequest): AsyncIterable<StreamEvent> {
    const { output } = await this.getResponse(request);
    yield {
      type: 'response_done',
      response: {
        id: `resp_${this.requests.length}`,
        usage: { requests: 1, inputTokens: 0, outputTokens: 0, totalTokens: 0 },
        output,
      },
    } as StreamEvent;
  }
}

/** An assistant message output item holding `text`. */
export function assistantText(text: string): AgentOutputItem {
  return { type: 'message', role: 'assistant', status: 'completed', content: [{ type: 'output_text', text }] };
}

/** A function call output item. */
export function functionCall(callId: string, name: string, args: Record<string, unknown>): AgentOutputItem {
  return { type: 'function_call', callId, name, arguments: JSON.stringify(args), status: 'completed' };
}
