import type { ReductionAction, ReductionRecord } from '../contracts/llm-payload';
import type { CtxkitEventBase, CtxkitEventName } from './ctxkit-events';
import { type CtxkitEventBus, safeEmit } from './event-bus';

/**
 * The one event that reports a reduction of each action (docs/04-events.md). `history-trim` and
 * `tool-output-trim` carry the payload's records in `reductions` and are emitted with the payload:
 * what was dropped (history, or a memory block or the RAG context left out) and what was cut
 * (a tool output cut to a view, trimmed to a placeholder or micro-compacted, the newest user message
 * truncated, a memory block or the RAG context shortened). Recalled history is reported by the
 * payload's `history-recall`; summarized, compacted and extracted history by the event that made the
 * summary, the compaction or the entity state.
 */
export const REDUCTION_EVENT: Readonly<Record<ReductionAction, CtxkitEventName>> = {
  dropped: 'history-trim',
  trimmed: 'tool-output-trim',
  truncated: 'tool-output-trim',
  'micro-compacted': 'tool-output-trim',
  recalled: 'history-recall',
  summarized: 'summary-end',
  compacted: 'compaction-end',
  extracted: 'entities-updated',
};

/**
 * Emits the records of `records` that `history-trim` and `tool-output-trim` report (see
 * {@link REDUCTION_EVENT}): every dropped record in one `history-trim`, every cut record (truncated,
 * trimmed, micro-compacted) in one `tool-output-trim`, memory blocks and the RAG context included.
 * Recalled, summarized, compacted and extracted records are left to the events that report them.
 */
export function emitReductions(
  events: CtxkitEventBus,
  base: CtxkitEventBase,
  records: ReadonlyArray<ReductionRecord>,
): void {
  const dropped = records.filter((record) => REDUCTION_EVENT[record.action] === 'history-trim');
  if (dropped.length > 0)
    safeEmit(events, 'history-trim', {
      ...base,
      reductions: dropped,
      droppedMessages: dropped.reduce((sum, record) => sum + record.messages, 0),
    });
  const cut = records.filter((record) => REDUCTION_EVENT[record.action] === 'tool-output-trim');
  if (cut.length > 0) safeEmit(events, 'tool-output-trim', { ...base, reductions: cut });
}
