import { assertHistoryShape } from './assert-history-shape';
import { HistoryGrowth } from './history-growth';

/**
 * Checks the shape of one conversation's growing history (see {@link assertHistoryShape}): only the
 * messages new since the previous check when the history is the previously checked one grown (see
 * {@link HistoryGrowth}), all of them otherwise. A turn's check costs the same at 100 and 10,000
 * messages; a history that fails is checked again from the same place.
 */
export class GrowingHistoryCheck {
  private readonly checked = new HistoryGrowth();

  /** @throws HistoryValidationError (`CTXKIT_HISTORY_INVALID`) naming the first bad index */
  checkHistoryShape(history: ReadonlyArray<unknown>): void {
    assertHistoryShape(history, Array.isArray(history) ? this.checked.newFrom(history) : 0);
    this.checked.remember(history);
  }
}
