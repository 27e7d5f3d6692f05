import { type CtxkitEventBase, type ReductionEpoch, safeEmit, type StrategyContext } from '@ctxkit/core';
import { type EpochDescription, EpochLog, type TakenEpoch } from '@ctxkit/core/strategy-kit';

import type { CompactionDone } from '../compaction/compactor';
import { asSavedBefore, type SavedBefore } from './saved-before';

/** One epoch to undo with the state it saved. */
export interface EpochToUndo {
  epoch: ReductionEpoch;
  /** `undefined` when not this strategy's: undone without a state to restore. */
  before: SavedBefore | undefined;
}

/**
 * The strategy's undoable reductions (compactions, trims) in the session's {@link EpochLog}, shared by every process
 * serving the session, and their events. A store failure to record is a `strategy-warning`, never a failed payload.
 */
export class SessionEpochs {
  private readonly log: EpochLog;

  constructor(
    private readonly options: {
      context: Pick<StrategyContext, 'store' | 'agentId' | 'sessionId' | 'now' | 'events'>;
      eventBase(turn: number): CtxkitEventBase;
    },
  ) {
    const { store, agentId, sessionId, now } = options.context;
    this.log = new EpochLog({ store, agentId, sessionId, now: () => now() });
  }

  /** Oldest first. */
  list(): Promise<ReductionEpoch[]> {
    return this.log.list();
  }

  /** Records a reduction with the state it replaced. */
  async record(description: EpochDescription, before: SavedBefore): Promise<void> {
    const epoch = await this.log.record(description, before).catch((error: unknown) => {
      safeEmit(this.options.context.events, 'strategy-warning', {
        ...this.options.eventBase(description.turn),
        message:
          `The ${description.kind} (${description.description}) could not be kept as an epoch, so it cannot ` +
          `be undone: ${error instanceof Error ? error.message : String(error)}`,
      });
    });
    if (epoch)
      safeEmit(this.options.context.events, 'epoch-recorded', { ...this.options.eventBase(description.turn), epoch });
  }

  /** Keeps a compaction with the transcript saved before it and what the compactor knew. */
  async recordCompaction({ state, trigger, turn, before }: CompactionDone): Promise<void> {
    const { tokensBefore, tokensAfter, keepFrom } = state;
    const tokens = `${tokensBefore.toLocaleString('en-US')} → ${tokensAfter.toLocaleString('en-US')} tokens`;
    const replaced = keepFrom === 1 ? 'message 0' : keepFrom > 0 ? `messages 0–${keepFrom - 1}` : 'the history';
    const description =
      `${trigger} compaction ${state.count}: replaced ${replaced} into retain + summary (${tokens}); the history ` +
      `before it is in ${state.transcriptRef}`;
    await this.record(
      { kind: 'compaction', turn, description, range: { from: 0, to: keepFrom }, tokensBefore, tokensAfter },
      { kind: 'compaction', transcriptRef: state.transcriptRef, compactor: before },
    );
  }

  /**
   * `epochId` and every later epoch with its saved state, oldest first, leaving the log as it is (then {@link take}).
   * @throws EpochNotFoundError (`CTXKIT_EPOCH_NOT_FOUND`) when the log has no such epoch
   */
  async peekFrom(epochId: string): Promise<EpochToUndo[]> {
    const epochs = await this.log.list();
    const at = epochs.findIndex((epoch) => epoch.id === epochId);
    // Not there: the log's own error names the ids it has.
    if (at < 0) await this.log.peek(epochId);
    const found: EpochToUndo[] = [];
    for (const epoch of epochs.slice(Math.max(0, at))) {
      try {
        const peeked = await this.log.peek<unknown>(epoch.id);
        found.push({ epoch: peeked.undone, before: asSavedBefore(peeked.before) });
      } catch (error) {
        // A later epoch another process undid meanwhile; the one asked for must be there.
        if (epoch.id === epochId) throw error;
      }
    }
    return found;
  }

  /**
   * Takes `epochId` and every later epoch out of the log, once their state is restored.
   * @throws EpochNotFoundError (`CTXKIT_EPOCH_NOT_FOUND`) when another process undid it meanwhile
   */
  async take(epochId: string, turn: number, historyRestored: boolean): Promise<TakenEpoch<unknown>> {
    const taken = await this.log.take<unknown>(epochId);
    const { undone: epoch, alsoUndone } = taken;
    const base = this.options.eventBase(turn);
    safeEmit(this.options.context.events, 'epoch-undone', { ...base, epoch, alsoUndone, historyRestored });
    return taken;
  }
}
