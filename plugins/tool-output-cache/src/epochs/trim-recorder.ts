import type { ITokenCounter } from '@ctxkit/core';

import type { ComposedView } from '../view/view-payload-composer';
import { trimEpoch } from './describe-epoch';
import type { SessionEpochs } from './session-epochs';
import { TrimTracker } from './trim-tracker';

/**
 * Keeps the outputs a payload shows as placeholders for the first time as one trim epoch. The positions looked at are
 * the view's new placeholders and every lighter form the layout used (those already recorded are skipped), and only
 * those the payload carries (the window's older history changes nothing a payload depends on).
 */
export class TrimRecorder {
  /** Which placeholders a payload shows for the first time. */
  private readonly trims = new TrimTracker();

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
    const trims = this.trims.take(messages, candidates, composed.final.window.fromIndex, this.counter);
    if (trims.length === 0) return;
    await this.epochs.record(trimEpoch(trims, messages, turn), {
      kind: 'trim',
      toolCallIds: trims.map((trim) => trim.toolCallId),
    });
  }

  /** Forgets these outputs (their trim was undone): a later trim of one of them is new again. */
  forget(toolCallIds: Iterable<string>): void {
    this.trims.forget(toolCallIds);
  }
}
