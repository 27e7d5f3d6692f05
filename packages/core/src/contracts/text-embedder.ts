/** What {@link ITextEmbedder.embed} takes besides the texts. */
export interface EmbedOptions {
  /** Aborts the request (a deadline, a disposed agent). */
  signal?: AbortSignal;
}

/**
 * Turns texts into vectors, for recall by meaning beside recall by words. Adapters build one from
 * the AI SDK (`embedderFromEmbeddingModel`), LangChain (`embedderFromLangChain`) or the kernel's
 * OpenAI-compatible client (`OpenAICompatibleEmbedder`); a host may pass any object of this shape to
 * `createContextRuntime({ embedder })`.
 * @see docs/strategies/recall.md
 */
export interface ITextEmbedder {
  /**
   * Names the model. Stored beside every vector: vectors of another model are never compared with
   * this one's (the entries are embedded again).
   */
  readonly model: string;
  /**
   * One vector per text, in the texts' order, all of one length.
   * @throws any error; the caller falls back to recall by words and retries later
   */
  embed(texts: ReadonlyArray<string>, options?: EmbedOptions): Promise<number[][]>;
}
