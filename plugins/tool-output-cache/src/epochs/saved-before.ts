import type { CompactorSnapshot } from '../compaction/compactor';

/** What a compaction epoch keeps: the transcript of the history it replaced and what the compactor knew. */
export interface CompactionBefore {
  kind: 'compaction';
  /** `transcript:<name>`: the caller's history as it was passed to the compaction. */
  transcriptRef: string;
  compactor: CompactorSnapshot;
}

/** What a trim epoch keeps: the tool calls whose outputs it trimmed to a placeholder. */
export interface TrimBefore {
  kind: 'trim';
  toolCallIds: string[];
}

export type SavedBefore = CompactionBefore | TrimBefore;

/** `value` as a {@link SavedBefore}, or `undefined` when something else wrote it. */
export function asSavedBefore(value: unknown): SavedBefore | undefined {
  const saved = value as
    | { kind?: unknown; toolCallIds?: unknown; transcriptRef?: unknown; compactor?: Partial<CompactorSnapshot> }
    | null
    | undefined;
  const ids = saved?.toolCallIds;
  if (saved?.kind === 'trim' && Array.isArray(ids) && ids.every((id) => typeof id === 'string'))
    return { kind: 'trim', toolCallIds: ids as string[] };
  if (saved?.kind !== 'compaction' || typeof saved.transcriptRef !== 'string' || !saved.compactor?.backoff)
    return undefined;
  const { state, backoff } = saved.compactor;
  return { kind: 'compaction', transcriptRef: saved.transcriptRef, compactor: { state: state ?? null, backoff } };
}
