import type { Model, ModelRequest, ModelResponse, StreamEvent } from '@openai/agents';

/** Composes one model request: what the strategy sends instead of the runner's request. */
export type ComposeRequest = (request: ModelRequest) => Promise<ModelRequest>;

/**
 * A `Model` whose every request is composed before the wrapped model gets it: the input (the
 * stored history plus the run's items, as the runner built it) becomes the strategy's payload, and
 * the strategy's own tools go out exactly when that payload offers them. The runner's own items
 * are never changed, so the session stores the run's items as they are.
 */
export class ComposingModel implements Model {
  readonly supportsPromptModelSelection?: boolean;

  constructor(
    private readonly model: Model,
    private readonly compose: ComposeRequest,
  ) {
    if (model.supportsPromptModelSelection !== undefined)
      this.supportsPromptModelSelection = model.supportsPromptModelSelection;
  }

  async getResponse(request: ModelRequest): Promise<ModelResponse> {
    return this.model.getResponse(await this.compose(request));
  }

  async *getStreamedResponse(request: ModelRequest): AsyncIterable<StreamEvent> {
    yield* this.model.getStreamedResponse(await this.compose(request));
  }
}
