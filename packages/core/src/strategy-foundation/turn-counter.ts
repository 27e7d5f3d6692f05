import type { ChatMessage } from '../contracts/chat-message';
import { TurnIndex } from '../ledger/turn-index';

/**
 * What checks a history before its turns are counted: `PayloadComposer.checkHistoryShape`, which
 * checks only the messages new since its previous check, so that the composition that follows has
 * nothing left to check.
 */
export interface HistoryShapeCheck {
  checkHistoryShape(history: ReadonlyArray<unknown>): void;
}

/**
 * Turn numbers (user messages seen) of one conversation's growing history: each call checks the
 * messages new since the previous one (an object with a known role, and the rest of the shape a
 * payload needs) and reads only them, so a turn number costs the same at 100 and 10,000 messages.
 * A history that is not the previous one grown is read whole (the rule of {@link TurnIndex.sync}).
 */
export class TurnCounter {
  /** Where the turns of the last counted history start (for `turnsBefore`, `turnStart`, ranges). */
  readonly index = new TurnIndex();

  /** @param shape the composer of the conversation (its check is shared with its compositions) */
  constructor(private readonly shape: HistoryShapeCheck) {}

  /**
   * The turn number of `history`.
   * @throws HistoryValidationError (`CTXKIT_HISTORY_INVALID`) for a message that is not an object with a known role and
   *   a valid shape
   */
  count(history: ReadonlyArray<Readonly<ChatMessage>>): number {
    this.shape.checkHistoryShape(history);
    this.index.sync(history);
    return this.index.turns;
  }
}
