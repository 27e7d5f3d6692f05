import type { CompactorSnapshot } from '../compaction/compactor';

/**
 * What a compaction epoch keeps: the transcript saved before it (the history it replaced) and what the compactor knew.
 */
export interface CompactionBefore {
  kind: 'compaction';
  /** `transcript:<name>`: the caller's history as it was passed to the compaction. */
  transcriptRef: string;
  compactor: CompactorSnapshot;
}

/** What a trim epoch keeps: the tool calls whose outputs it trimmed to a placeholder (they were whole before). */
export interface TrimBefore {
  kind: 'trim';
  toolCallIds: string[];
}

/** The state an epoch of this strategy saved before its reduction. */
export type SavedBefore = CompactionBefore | TrimBefore;

/** `value` as a {@link SavedBefore}, or `undefined` when it is not one (written by something else). */
export function asSavedBefore(value: unknown): SavedBefore | undefined {
  const saved = value as
    | { kind?: unknown; toolCallIds?: unknown; transcriptRef?: unknown; compactor?: Partial<CompactorSnapshot> }
    | null
    | undefined;
  if (
    saved?.kind === 'trim' &&
    Array.isArray(saved.toolCallIds) &&
    saved.toolCallIds.every((id) => typeof id === 'string')
  )
    return { kind: 'trim', toolCallIds: saved.toolCallIds as string[] };
  if (
    saved?.kind === 'compaction' &&
    typeof saved.transcriptRef === 'string' &&
    saved.compactor &&
    typeof saved.compactor === 'object' &&
    saved.compactor.backoff
  ) {
    return {
      kind: 'compaction',
      transcriptRef: saved.transcriptRef,
      compactor: { state: saved.compactor.state ?? null, backoff: saved.compactor.backoff },
    };
  }
  return undefined;
}
