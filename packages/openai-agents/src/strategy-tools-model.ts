import type { Model, ModelRequest, ModelResponse, StreamEvent } from '@openai/agents';

/** Which of the strategy's own tools the composition for the current model call offers. */
export interface OfferedStrategyTools {
  /** The names of every tool the strategy contributes. */
  own: ReadonlySet<string>;
  /** True when the composition the input filter made for this call offers the tool named `name`. */
  offers(name: string): boolean;
}

/**
 * A `Model` that sends each request with exactly the strategy tools the composition for that call
 * offers. The Agents SDK picks a call's tools before the input filter composes the call's input; with
 * this model every strategy tool stays enabled (so the SDK can run a call of any of them) and the
 * request leaves out those the composition did not offer (so the model sees, and the budget counts,
 * exactly what the strategy counted). The caller's own tools pass unchanged.
 */
export class StrategyToolsModel implements Model {
  readonly supportsPromptModelSelection?: boolean;

  constructor(
    private readonly model: Model,
    private readonly tools: OfferedStrategyTools,
  ) {
    if (model.supportsPromptModelSelection !== undefined) this.supportsPromptModelSelection = model.supportsPromptModelSelection;
  }

  getResponse(request: ModelRequest): Promise<ModelResponse> {
    return this.model.getResponse(this.offered(request));
  }

  getStreamedResponse(request: ModelRequest): AsyncIterable<StreamEvent> {
    return this.model.getStreamedResponse(this.offered(request));
  }

  private offered(request: ModelRequest): ModelRequest {
    const { own, offers } = this.tools;
    const tools = request.tools.filter((tool) => !('name' in tool) || !own.has(tool.name) || offers(tool.name));
    return tools.length === request.tools.length ? request : { ...request, tools };
  }
}
