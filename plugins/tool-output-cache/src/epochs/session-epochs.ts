import {
  type CtxkitEventBase,
  type CtxkitEventBus,
  type ReductionEpoch,
  safeEmit,
  type StrategyContext,
} from '@ctxkit/core';
import { type EpochDescription, EpochLog } from '@ctxkit/core/strategy-kit';

import type { CompactionState } from '../compaction/compaction-state';
import type { CompactionDone, CompactionTrigger } from '../compaction/compactor';
import { asSavedBefore, type SavedBefore } from './saved-before';

/** One epoch to undo with the state it saved. */
export interface EpochToUndo {
  epoch: ReductionEpoch;
  /** `undefined` when what it saved is not this strategy's (it is undone without a state to restore). */
  before: SavedBefore | undefined;
}

/** What {@link SessionEpochs} works with. */
export interface SessionEpochsOptions {
  context: Pick<StrategyContext, 'store' | 'agentId' | 'sessionId' | 'now'>;
  events: CtxkitEventBus;
  eventBase(turn: number): CtxkitEventBase;
}

/**
 * The strategy's undoable reductions (compactions and trims to a placeholder), kept in the session's
 * {@link EpochLog} (store kind `state`, shared by every process serving the session), with the events
 * that report them. Recording never fails a payload or a compaction: a store failure is reported as
 * a `strategy-warning` and the reduction simply cannot be undone.
 */
export class SessionEpochs {
  private readonly log: EpochLog;

  constructor(private readonly options: SessionEpochsOptions) {
    const { store, agentId, sessionId, now } = options.context;
    this.log = new EpochLog({ store, agentId, sessionId, now: () => now() });
  }

  /** The epochs kept, oldest first. */
  list(): Promise<ReductionEpoch[]> {
    return this.log.list();
  }

  /** Records a reduction with the state it replaced and emits `epoch-recorded` (a store failure is reported). */
  async record(description: EpochDescription, before: SavedBefore): Promise<void> {
    const epoch = await this.log.record(description, before).catch((error: unknown) => {
      safeEmit(this.options.events, 'strategy-warning', {
        ...this.options.eventBase(description.turn),
        message:
          `The ${description.kind} (${description.description}) could not be kept as an epoch, so it cannot ` +
          `be undone: ${error instanceof Error ? error.message : String(error)}`,
      });
    });
    if (epoch) safeEmit(this.options.events, 'epoch-recorded', { ...this.options.eventBase(description.turn), epoch });
  }

  /** Keeps a compaction as an epoch, with the transcript saved before it and what the compactor knew. */
  async recordCompaction(done: CompactionDone): Promise<void> {
    await this.record(compactionEpoch(done.state, done.trigger, done.turn), {
      kind: 'compaction',
      transcriptRef: done.state.transcriptRef,
      compactor: done.before,
    });
  }

  /**
   * `epochId` and every later epoch with the state each saved, oldest first, leaving the log as it is
   * (restore first, then {@link take}).
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
   * Takes `epochId` and every later epoch out of the log (after their state was restored) and emits
   * `epoch-undone`.
   * @throws EpochNotFoundError (`CTXKIT_EPOCH_NOT_FOUND`) when another process undid it meanwhile
   */
  async take(
    epochId: string,
    turn: number,
    historyRestored: boolean,
  ): Promise<{ undone: ReductionEpoch; alsoUndone: ReductionEpoch[] }> {
    const { undone, alsoUndone } = await this.log.take<unknown>(epochId);
    safeEmit(this.options.events, 'epoch-undone', {
      ...this.options.eventBase(turn),
      epoch: undone,
      alsoUndone,
      historyRestored,
    });
    return { undone, alsoUndone };
  }
}

/** A compaction as an epoch: the messages it replaced, its tokens before and after, its transcript. */
function compactionEpoch(state: Readonly<CompactionState>, trigger: CompactionTrigger, turn: number): EpochDescription {
  const tokens = `${state.tokensBefore.toLocaleString('en-US')} → ${state.tokensAfter.toLocaleString('en-US')} tokens`;
  const replaced =
    state.keepFrom === 1 ? 'message 0' : state.keepFrom > 0 ? `messages 0–${state.keepFrom - 1}` : 'the history';
  return {
    kind: 'compaction',
    turn,
    description:
      `${trigger} compaction ${state.count}: replaced ${replaced} into retain + summary (${tokens}); the history ` +
      `before it is in ${state.transcriptRef}`,
    range: { from: 0, to: state.keepFrom },
    tokensBefore: state.tokensBefore,
    tokensAfter: state.tokensAfter,
  };
}
