import type { CompiledStateSchema } from '../schema/state-schema';
import type { EntityFieldChange, EntityState, ExtractorKind } from '../state/entity-state';
import type { ExtractionInput } from './extraction-input';

/** What an extractor is asked to do: update `state` from `input`, valid against `schema`. */
export interface ExtractionRequest {
  schema: CompiledStateSchema;
  /** The current state (read-only; extractors return a new one). */
  state: Readonly<EntityState>;
  input: ExtractionInput;
}

/** Why an extraction changed nothing. */
export type ExtractionFailureReason = 'invalid-answer' | 'llm-error';

/** Outcome of one extraction. */
export type ExtractionOutcome =
  | { ok: true; state: EntityState; diff: EntityFieldChange[]; attempts: number }
  | { ok: false; reason: ExtractionFailureReason; errors: string[]; attempts: number };

/**
 * Turns new user input into an updated state. Two implementations: the LLM extraction chain and the
 * deterministic offline extractor. Extractors never throw: failures come back as outcomes, and the
 * previous state stands.
 */
export interface StateExtractor {
  readonly kind: ExtractorKind;
  /** Shown in versions, events and stats (`llm:openai/gpt-4o-mini`, `offline-extractor`). */
  readonly name: string;
  /** True when no language model is involved. */
  readonly offline: boolean;
  extract(request: ExtractionRequest): Promise<ExtractionOutcome>;
}
