import type { ChatMessage } from '@ctxkit/core';
import type { EpochDescription } from '@ctxkit/core/strategy-kit';

import type { CompactionState } from '../compaction/compaction-state';
import type { CompactionTrigger } from '../compaction/compactor';
import { toolNameAt } from '../view/tool-call-names';
import type { NewTrim } from './trim-tracker';

/** Outputs a trim epoch's description names; the rest are counted. */
export const LISTED_TRIMS = 8;

function range(from: number, to: number): string {
  return to - from === 1 ? `message ${from}` : `messages ${from}–${to - 1}`;
}

/** A compaction as an epoch: the messages it replaced, its tokens before and after, its transcript. */
export function compactionEpoch(
  state: Readonly<CompactionState>,
  trigger: CompactionTrigger,
  turn: number,
): EpochDescription {
  const tokens = `${state.tokensBefore.toLocaleString('en-US')} → ${state.tokensAfter.toLocaleString('en-US')} tokens`;
  const what =
    state.keepFrom > 0 ? `${range(0, state.keepFrom)} into retain + summary` : 'the history into retain + summary';
  return {
    kind: 'compaction',
    turn,
    description:
      `${trigger} compaction ${state.count}: replaced ${what} (${tokens}); the history before it is ` +
      `in ${state.transcriptRef}`,
    range: { from: 0, to: state.keepFrom },
    tokensBefore: state.tokensBefore,
    tokensAfter: state.tokensAfter,
  };
}

/**
 * The trims of one payload as an epoch: the outputs (tool, call id, history index), the first {@link LISTED_TRIMS}
 * named.
 */
export function trimEpoch(
  trims: ReadonlyArray<NewTrim>,
  messages: ReadonlyArray<ChatMessage>,
  turn: number,
): EpochDescription {
  const named = trims
    .slice(0, LISTED_TRIMS)
    .map((trim) => `${toolNameAt(messages, trim.position)} ${trim.toolCallId} (#${trim.position})`);
  const more = trims.length > LISTED_TRIMS ? `, and ${(trims.length - LISTED_TRIMS).toLocaleString('en-US')} more` : '';
  const count = trims.length === 1 ? 'a tool output' : `${trims.length.toLocaleString('en-US')} tool outputs`;
  return {
    kind: 'trim',
    turn,
    description: `trimmed ${count} to placeholders: ${named.join(', ')}${more}`,
    range: { from: trims[0]!.position, to: trims[trims.length - 1]!.position + 1 },
    tokensAfter: trims.reduce((sum, trim) => sum + trim.tokens, 0),
  };
}
