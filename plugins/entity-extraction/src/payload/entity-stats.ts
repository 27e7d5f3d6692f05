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
 * Messages a payload's state does not include yet, because the payload was composed without their
 * extraction: `late`, the extraction's model had not answered within `extractionWaitMs` (the
 * extraction goes on in the background); `running`, an earlier extraction the strategy stopped
 * waiting for still runs; `backing-off`, the model failed or timed out recently and is not called
 * before `retryAt`. The next extraction reads them.
 */
export interface PendingExtraction {
  reason: 'late' | 'running' | 'backing-off';
  /** First and last history index of the messages not read yet. */
  from: number;
  through: number;
  /** When the model is called again (`context.now()` time, ms since epoch); only when backing off. */
  retryAt?: number;
  /** The same, in words. */
  message: string;
}

/**
 * What a payload's `stats.extra.entities` reports: the state (a copy) and its version, the block sent
 * (its tokens, the required fields still missing, the fields shortened), the extractor, how far the
 * history was read, the last failure, whether the window keeps only the recent turns (lean mode), and
 * the messages the state does not include yet because the payload was composed without their
 * extraction (`null` when it includes every message).
 */
export function entityStats(
  persisted: PersistedEntityState,
  block: RenderedStateBlock,
  extractor: StateExtractor,
  lastError: ExtractionFailure | null,
  lean: boolean,
  pendingExtraction: PendingExtraction | null,
) {
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
    pendingExtraction: pendingExtraction ? { ...pendingExtraction } : null,
  };
}
