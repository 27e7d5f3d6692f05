import type { ChatMessage, ITokenCounter, PreviewItem } from '@ctxkit/core';
import { previewItem } from '@ctxkit/core/strategy-kit';

import type { CompactionPlan, CompactionView } from './compactor';
import { splitForCompaction } from './tail-turns';

/** The messages of `history` the compaction of `view` would replace: a preview's `compacted`. */
export async function messagesCompactionWouldReplace(
  view: CompactionView,
  history: ReadonlyArray<ChatMessage>,
  retainLastTurns: number,
  counter: ITokenCounter,
): Promise<PreviewItem[]> {
  const { replaced } = splitForCompaction(await view.entries(), retainLastTurns);
  return replaced.map((entry) => previewItem(history, entry.source!, counter));
}

/** What a preview's compaction part found, for its notes. */
export interface CompactionPreview {
  plan: CompactionPlan;
  /** The messages it would replace; `hasModel`: a model writes the summary; `setAside`: the compaction is set aside. */
  compacted: number;
  hasModel: boolean;
  setAside: boolean;
}

/** A preview's notes on compaction: the compaction set aside, what the next one would do, or why it waits. */
export function compactionPreviewNotes({ plan, compacted, hasModel, setAside }: CompactionPreview): string[] {
  const notes: string[] = [];
  if (setAside)
    notes.push(
      'the history no longer continues the compacted conversation: the next payload sets the compaction aside and ' +
        'uses the history as given',
    );
  if (plan.trigger) {
    const what =
      compacted > 0
        ? `replacing ${compacted.toLocaleString('en-US')} messages by retain + summary`
        : 'but nothing older than the turns it keeps would be replaced';
    const model = hasModel ? '' : '; no model is configured, so it would fail and change nothing';
    notes.push(
      `the next payload or checkpoint would compact (${plan.trigger}: ${plan.note}), ${what}${model}; what follows ` +
        `is the payload before it`,
    );
  } else if (plan.note) notes.push(plan.note);
  return notes;
}
