import type { ITokenCounter } from '@ctxkit/core';
import type { EpochDescription } from '@ctxkit/core/strategy-kit';

import { isTrimmed } from '../cache/trimmed-placeholder';
import { isMicroCompacted, toolNameAt } from '../view/micro-compact';
import type { ComposedView } from '../view/view-payload-composer';
import type { SessionEpochs } from './session-epochs';

/** Outputs a trim epoch's description names; the rest are counted. */
const LISTED_TRIMS = 8;

/** An output first shown as a placeholder: `position` in the caller's history, `tokens` of its placeholder. */
interface NewTrim {
  position: number;
  toolCallId: string;
  tokens: number;
}

/**
 * Keeps the outputs a payload first shows as placeholders (of the budget, micro-compact, or to fit) as one trim epoch,
 * each output once: the view's new placeholders and the lighter forms the layout used, only those the payload carries
 * (the history older than its window changes nothing it depends on).
 */
export class TrimRecorder {
  private readonly recordedToolCallIds = new Set<string>();

  constructor(
    private readonly epochs: SessionEpochs,
    private readonly counter: ITokenCounter,
  ) {}

  /** Records the new placeholders of a composed payload, if any. */
  async record(composed: ComposedView, turn: number): Promise<void> {
    const trims = this.take(composed);
    if (trims.length === 0) return;
    const { messages } = composed;
    const named = trims
      .slice(0, LISTED_TRIMS)
      .map((trim) => `${toolNameAt(messages, trim.position)} ${trim.toolCallId} (#${trim.position})`);
    const unnamed = trims.length - LISTED_TRIMS;
    const more = unnamed > 0 ? `, and ${unnamed.toLocaleString('en-US')} more` : '';
    const count = trims.length === 1 ? 'a tool output' : `${trims.length.toLocaleString('en-US')} tool outputs`;
    const description: EpochDescription = {
      kind: 'trim',
      turn,
      description: `trimmed ${count} to placeholders: ${named.join(', ')}${more}`,
      range: { from: trims[0]!.position, to: trims[trims.length - 1]!.position + 1 },
      tokensAfter: trims.reduce((sum, trim) => sum + trim.tokens, 0),
    };
    await this.epochs.record(description, { kind: 'trim', toolCallIds: trims.map((trim) => trim.toolCallId) });
  }

  /** Forgets outputs whose trim was undone: a later trim of one is new again. */
  forget(toolCallIds: Iterable<string>): void {
    for (const id of toolCallIds) this.recordedToolCallIds.delete(id);
  }

  /** The payload's new placeholders in position order, recorded from now on. */
  private take({ messages, prepared, lightenedAt, final }: ComposedView): NewTrim[] {
    const found = new Map<number, NewTrim>();
    for (const position of [...prepared.newPlaceholders, ...lightenedAt]) {
      if (position < final.window.fromIndex || found.has(position)) continue;
      const message = messages[position];
      if (message?.role !== 'tool' || this.recordedToolCallIds.has(message.tool_call_id)) continue;
      if (!isTrimmed(message) && !isMicroCompacted(message)) continue;
      found.set(position, { position, toolCallId: message.tool_call_id, tokens: this.counter.countMessage(message) });
    }
    const trims = [...found.values()].sort((a, b) => a.position - b.position);
    for (const trim of trims) this.recordedToolCallIds.add(trim.toolCallId);
    return trims;
  }
}
