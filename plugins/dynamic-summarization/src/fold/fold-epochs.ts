import {
  CtxkitError,
  type CtxkitEventBase,
  ErrorCodes,
  type ReductionEpoch,
  safeEmit,
  type StrategyContext,
  type UndoResult,
} from '@ctxkit/core';
import { EpochLog } from '@ctxkit/core/strategy-kit';

import { type SummaryRecord, type SummaryState, toSummaryRecord } from '../summary-state';

/** A fold as it was committed: what the session's record was before, and what the fold wrote. */
export interface CommittedFold {
  /** The record the commit's compare-and-set replaced (the state to go back to). */
  replaced: SummaryRecord;
  /** The summary it wrote. */
  summary: SummaryState;
  /** History messages `[from, to)` folded into it. */
  range: { from: number; to: number };
  /** Turns among them. */
  turns: number;
  /** Tokens of the folded messages. */
  batchTokens: number;
  /** Tokens the new summary replaces: the folded messages and the previous summary. */
  replacedTokens: number;
  /** The session's turn when the fold started. */
  turn: number;
}

/** Writes `summary` back as the session's summary (compare-and-set, like every write of the record). */
export type RestoreSummary = (summary: SummaryState | null) => Promise<void>;

/** The epoch's one line: "folded messages 0–11 (4 turns, 2,310 tokens) into the summary (v1, 180 tokens)". */
export function foldDescription(fold: Omit<CommittedFold, 'replaced'>): string {
  const { range, turns, batchTokens, summary } = fold;
  const messages = range.to - range.from === 1 ? `message ${range.from}` : `messages ${range.from}–${range.to - 1}`;
  return (
    `folded ${messages} (${turns} turn${turns === 1 ? '' : 's'}, ${batchTokens.toLocaleString('en-US')} tokens) ` +
    `into the summary ` +
    `(v${summary.version}, ${summary.summaryTokens.toLocaleString('en-US')} tokens)`
  );
}

/**
 * The session's folds as undoable epochs (kind `fold`), kept in core's {@link EpochLog} in the
 * session's store: each committed fold is recorded with the summary record it replaced, after that
 * record was replaced (a crash in between leaves a fold that cannot be undone, never an epoch for a
 * summary that was never written). `undo` writes the saved summary back, then takes the epoch and
 * every later one from the log. Emits `epoch-recorded` and `epoch-undone`.
 * @see docs/strategies/dynamic-summarization.md
 */
export class FoldEpochs {
  private readonly log: EpochLog;

  constructor(private readonly context: StrategyContext) {
    this.log = new EpochLog({
      store: context.store,
      agentId: context.agentId,
      sessionId: context.sessionId,
      now: () => context.now(),
    });
  }

  /**
   * Records a committed fold. An epoch the log still holds for messages of this fold is taken out
   * first (with the epochs listed after it): the fold was made from a summary that covers less than it
   * does, so its fold no longer stands (an undo wrote an earlier summary back and its process died before it took them,
   * or the history was re-synced), and the log never names a message folded twice. A store that fails here leaves the
   * fold in place, not undoable (`strategy-warning`).
   */
  async recordFold(fold: CommittedFold): Promise<void> {
    let epoch: ReductionEpoch;
    try {
      const { from, to } = fold.range;
      const stale = (await this.log.list()).find(
        (recorded) => recorded.range !== undefined && recorded.range.from < to && recorded.range.to > from,
      );
      if (stale)
        await this.log
          .take(stale.id)
          .catch((error: unknown) => (isEpochNotFound(error) ? undefined : Promise.reject(error)));
      epoch = await this.log.record(
        {
          kind: 'fold',
          turn: fold.turn,
          description: foldDescription(fold),
          range: { ...fold.range },
          tokensBefore: fold.replacedTokens,
          tokensAfter: fold.summary.summaryTokens,
        },
        fold.replaced,
      );
    } catch (error) {
      safeEmit(this.context.events, 'strategy-warning', {
        ...this.eventBase(fold.turn),
        message:
          `the fold of messages ${fold.range.from}–${fold.range.to - 1} stands but could not be recorded as ` +
          `an epoch, so it cannot be undone: ${error instanceof Error ? error.message : String(error)}`,
      });
      return;
    }
    safeEmit(this.context.events, 'epoch-recorded', { ...this.eventBase(fold.turn), epoch });
  }

  /** The recorded folds, oldest first. */
  list(): Promise<ReductionEpoch[]> {
    return this.log.list();
  }

  /**
   * Restores the summary from before `epochId` through `restore`, then removes the epoch and every
   * later one from the log; `turn` names the session's turn in the event.
   * @throws EpochNotFoundError (`CTXKIT_EPOCH_NOT_FOUND`) when the session has no such epoch
   */
  async undo(epochId: string, restore: RestoreSummary, turn: number): Promise<UndoResult> {
    const peeked = await this.log.peek<unknown>(epochId);
    await restore(toSummaryRecord(peeked.before).summary);
    // Between the two, another process may have folded onto the summary written back and taken this
    // epoch out as one that no longer stands ({@link recordFold}): the undo is done all the same.
    const { undone, alsoUndone } = await this.log
      .take<unknown>(epochId)
      .catch((error: unknown) => (isEpochNotFound(error) ? peeked : Promise.reject(error)));
    safeEmit(this.context.events, 'epoch-undone', {
      ...this.eventBase(Math.max(turn, undone.turn, ...alsoUndone.map((epoch) => epoch.turn))),
      epoch: undone,
      alsoUndone,
      historyRestored: false,
    });
    return { undone, alsoUndone };
  }

  private eventBase(turn: number): CtxkitEventBase {
    const { agentId, sessionId, strategyId } = this.context;
    return { agentId, sessionId, strategyId, turn };
  }
}

function isEpochNotFound(error: unknown): boolean {
  return CtxkitError.isInstance(error) && error.code === ErrorCodes.EPOCH_NOT_FOUND;
}
