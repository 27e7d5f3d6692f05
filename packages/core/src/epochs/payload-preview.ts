import type { ChatMessage } from '../contracts/chat-message';
import type { LLMPayload, ReductionAction, ReductionRecord } from '../contracts/llm-payload';
import type { ReductionPreview } from '../contracts/reduction-epoch';
import type { ITokenCounter } from '../token-counting/token-counter';
import { previewItem } from './preview-item';

/** Reductions that leave a history message out of the payload whole. */
const LEFT_OUT: ReadonlySet<ReductionAction> = new Set<ReductionAction>([
  'dropped',
  'summarized',
  'extracted',
  'compacted',
]);

/** Reductions that send a history message cut, as a placeholder or micro-compacted. */
const CUT: ReadonlySet<ReductionAction> = new Set<ReductionAction>(['trimmed', 'truncated', 'micro-compacted']);

function rangeText(from: number, to: number): string {
  return to - from === 1 ? `message ${from}` : `messages ${from}–${to - 1}`;
}

/**
 * The history indexes a record covers: its whole range, or (a sparse range) the messages of it the payload does not
 * carry as they are.
 */
function recordIndexes(
  record: ReductionRecord,
  history: ReadonlyArray<Readonly<ChatMessage>>,
  sent: ReadonlySet<unknown>,
): number[] {
  const indexes: number[] = [];
  const to = Math.min(record.to, history.length);
  const whole = record.messages >= record.to - record.from;
  for (let index = record.from; index < to; index++) if (whole || !sent.has(history[index])) indexes.push(index);
  return indexes;
}

function noteOf(record: ReductionRecord): string {
  const what = record.messages === 0 ? '' : `${rangeText(record.from, record.to)} `;
  if (LEFT_OUT.has(record.action)) {
    return record.messages === 0
      ? record.reason
      : `${what}left out (${record.action}, recoverable from the ${record.recoverableFrom}): ${record.reason}`;
  }
  return record.messages === 0 ? record.reason : `${what}${record.action}: ${record.reason}`;
}

/**
 * What a composed payload does to the history it was composed for, as a {@link ReductionPreview}:
 * `dropped` names every history message the payload leaves out (dropped, or standing in a summary, the
 * entity state or a compaction: what its `stats.reductions` report), `trimmed` every message it sends
 * cut, as a placeholder or micro-compacted, `recalled` every message older than the window it sends
 * again in a recall block, `payloadTokens` its tokens, and `notes` one line per
 * reduction. `folded` and `compacted` are empty: a strategy adds what its own next reduction would do.
 * Compose the payload with `ComposeRequest.preview` so that computing it changes nothing.
 * @see docs/06-writing-a-strategy.md
 */
export function payloadPreview(
  payload: LLMPayload,
  history: ReadonlyArray<Readonly<ChatMessage>>,
  counter: ITokenCounter,
): ReductionPreview {
  const sent = new Set<unknown>(payload.messages);
  const dropped = new Set<number>();
  const trimmed = new Set<number>();
  const recalled = new Set<number>();
  const notes: string[] = [];
  for (const record of payload.stats.reductions) {
    notes.push(noteOf(record));
    const into = LEFT_OUT.has(record.action)
      ? dropped
      : CUT.has(record.action)
        ? trimmed
        : record.action === 'recalled'
          ? recalled
          : undefined;
    if (into && record.messages > 0) for (const index of recordIndexes(record, history, sent)) into.add(index);
  }
  const { budget } = payload.stats;
  notes.push(
    `the payload would take ${payload.stats.output_tokens.toLocaleString('en-US')} ` +
      `of ${budget.available.toLocaleString('en-US')} available tokens`,
  );
  const items = (indexes: Set<number>) =>
    [...indexes].sort((a, b) => a - b).map((index) => previewItem(history, index, counter));
  return {
    dropped: items(dropped),
    folded: [],
    compacted: [],
    trimmed: items(trimmed),
    ...(recalled.size > 0 ? { recalled: items(recalled) } : {}),
    payloadTokens: payload.stats.output_tokens,
    notes,
  };
}
