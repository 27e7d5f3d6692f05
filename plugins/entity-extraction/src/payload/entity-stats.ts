import type { StateExtractor } from '../extraction/state-extractor';
import type { PersistedEntityState } from '../state/entity-state';
import type { RenderedStateBlock } from './render-state-block';

/** The last extraction that failed (the state before it stands), as the payload stats report it. */
export interface ExtractionFailure {
  reason: string;
  errors: string[];
  sourceMessageIndex: number;
}

/**
 * What a payload's `stats.extra.entities` reports: the state (a copy) and its version, the block sent
 * (its tokens, the required fields still missing, the fields shortened), the extractor, how far the
 * history was read, the last failure, and whether the window keeps only the recent turns (lean mode).
 */
export function entityStats(persisted: PersistedEntityState, block: RenderedStateBlock, extractor: StateExtractor, lastError: ExtractionFailure | null, lean: boolean) {
  return {
    version: persisted.versions.length,
    state: structuredClone(persisted.state),
    stateTokens: block.tokens,
    missingRequired: [...block.missingRequired],
    truncatedFields: [...block.truncatedFields],
    extractor: extractor.name,
    offline: extractor.offline,
    processedThrough: persisted.processedThrough,
    lastError: lastError ? structuredClone(lastError) : null,
    lean,
  };
}
