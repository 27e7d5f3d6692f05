import type { ChatMessage, ITokenCounter } from '@ctxkit/core';
import type { EpochDescription } from '@ctxkit/core/strategy-kit';

import { isTrimmed } from '../cache/trimmed-placeholder';
import { isMicroCompacted } from '../view/micro-compact';
import { toolNameAt } from '../view/tool-call-names';
import type { ComposedView } from '../view/view-payload-composer';
import type { SessionEpochs } from './session-epochs';

/** Outputs a trim epoch's description names; the rest are counted. */
const LISTED_TRIMS = 8;

/** A tool output that a payload shows as a placeholder for the first time. */
interface NewTrim {
  /** Its index in the caller's history. */
  position: number;
  toolCallId: string;
  /** Tokens of its placeholder. */
  tokens: number;
}

/**
 * Keeps the outputs a payload shows as placeholders for the first time as one trim epoch. An output is recorded once:
 * by the epoch of the first payload that carries it as a placeholder (of the tool output budget, of micro-compact, or
 * to fit). The positions looked at are the view's new placeholders and every lighter form the layout used, and only
 * those the payload carries (the window's older history changes nothing a payload depends on). Undoing the epoch
 * forgets its outputs (the user took them back), so that a later trim of one of them is new again.
 */
export class TrimRecorder {
  /** The tool calls whose outputs an epoch recorded as trimmed. */
  private readonly recorded = new Set<string>();

  constructor(
    private readonly epochs: SessionEpochs,
    private readonly counter: ITokenCounter,
  ) {}

  /** Records the new placeholders of a composed payload, if any, as one epoch. */
  async record(composed: ComposedView, turn: number): Promise<void> {
    const relaid = composed.prepared.newPlaceholders;
    const { lightenedAt, messages } = composed;
    if (relaid.length === 0 && lightenedAt.length === 0) return;
    const candidates = lightenedAt.length === 0 ? relaid : [...relaid, ...lightenedAt];
    const trims = this.take(messages, candidates, composed.final.window.fromIndex);
    if (trims.length === 0) return;
    await this.epochs.record(trimEpoch(trims, messages, turn), {
      kind: 'trim',
      toolCallIds: trims.map((trim) => trim.toolCallId),
    });
  }

  /** Forgets these outputs (their trim was undone): a later trim of one of them is new again. */
  forget(toolCallIds: Iterable<string>): void {
    for (const id of toolCallIds) this.recorded.delete(id);
  }

  /**
   * The new placeholders among `candidates` (positions of `messages`) at or after `from` (the first position the
   * payload carries), in position order. They count as recorded from now on.
   */
  private take(messages: ReadonlyArray<ChatMessage>, candidates: Iterable<number>, from: number): NewTrim[] {
    const found = new Map<number, NewTrim>();
    for (const position of candidates) {
      if (position < from || found.has(position)) continue;
      const message = messages[position];
      if (message?.role !== 'tool' || this.recorded.has(message.tool_call_id)) continue;
      if (!isTrimmed(message) && !isMicroCompacted(message)) continue;
      found.set(position, { position, toolCallId: message.tool_call_id, tokens: this.counter.countMessage(message) });
    }
    const trims = [...found.values()].sort((a, b) => a.position - b.position);
    for (const trim of trims) this.recorded.add(trim.toolCallId);
    return trims;
  }
}

/** The trims of one payload as an epoch: the outputs (tool, call id, history index), the first eight named. */
function trimEpoch(
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
