import type { CompiledStateSchema } from '../schema/state-schema';
import type { EntityFieldChange, EntityState, ExtractorKind } from '../state/entity-state';
import type { ExtractionInput, ExtractionTrigger } from './extraction-input';

/** What an extractor is asked to do: update `state` from `input`, valid against `schema`. */
export interface ExtractionRequest {
  schema: CompiledStateSchema;
  /** The current state (read-only; extractors return a new one). */
  state: Readonly<EntityState>;
  input: ExtractionInput;
  /**
   * The strategy's clock (`context.now()`, ms since epoch): the year of a date written without one
   * when the conversation gives no year to go by.
   */
  now?: number;
  /** Ends the extraction at once, as a failed call, when it aborts (the strategy was disposed). */
  signal?: AbortSignal;
  /**
   * The conversation's `cacheKey`: the extraction request may go out as the conversation's last
   * request continued (`LLMCompletionRequest.continuation`), reading its cached prompt.
   */
  cacheKey?: string;
}

/** Why an extraction changed nothing. */
export type ExtractionFailureReason = 'invalid-answer' | 'llm-error';

/** Outcome of one extraction. */
export type ExtractionOutcome =
  | { ok: true; state: EntityState; diff: EntityFieldChange[]; attempts: number }
  | { ok: false; reason: ExtractionFailureReason; errors: string[]; attempts: number };

/**
 * Turns new conversation input (user messages, tool results) into an updated state. Two implementations: the LLM
 * extraction chain and the deterministic offline extractor. Extractors never throw: failures come back as outcomes, and
 * the previous state stands.
 */
export interface StateExtractor {
  readonly kind: ExtractorKind;
  /** Shown in versions, events and stats (`llm:openai/gpt-4o-mini`, `offline-extractor`). */
  readonly name: string;
  /** True when no language model is involved. */
  readonly offline: boolean;
  /**
   * Which new messages start an extraction: `user-messages` (tool results are read with the next
   * user message) or `user-messages-and-tool-results` (tool results are read as they arrive).
   */
  readonly trigger: ExtractionTrigger;
  extract(request: ExtractionRequest): Promise<ExtractionOutcome>;
}
