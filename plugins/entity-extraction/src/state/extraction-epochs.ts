import {
  type CtxkitEventBase,
  type ReductionEpoch,
  safeEmit,
  type StrategyContext,
  type UndoResult,
} from '@ctxkit/core';
import { EpochLog } from '@ctxkit/core/strategy-kit';

import type { EntityStateVersion, PersistedEntityState } from './entity-state';

/** Writes a state from before an extraction back (compare-and-set, like every write of the state). */
export type RestoreEntityState = (before: PersistedEntityState) => Promise<void>;

/** The changed fields of `versions`, each once, in the order they first changed. */
function changedFields(versions: readonly EntityStateVersion[]): string[] {
  return [...new Set(versions.flatMap((version) => version.diff.map((change) => change.field)))];
}

/**
 * The epoch's one line, naming the changed fields: "extraction from message 2 changed date, note
 * (state v1 → v2)"; several extractions written together are named together.
 */
export function extractionDescription(replaced: PersistedEntityState, written: PersistedEntityState): string {
  const added = written.versions.slice(replaced.versions.length);
  const sources = [...new Set(added.map((version) => version.sourceMessageIndex))];
  const from =
    sources.length === 1 ? `extraction from message ${sources[0]}` : `extractions from messages ${sources.join(', ')}`;
  return (
    `${from} changed ${changedFields(added).join(', ')} (state v${replaced.versions.length} → ` +
    `v${written.versions.length})`
  );
}

/**
 * The state that is the session's after an undo: the state and versions from before the undone
 * extractions, with the read point (and read points) of `current` kept (the messages they read are not read again, so
 * that the next payload shows the state from before them), and the read point from before them kept
 * for a history that no longer holds the newest message read.
 */
export function stateAfterUndo(
  current: Readonly<PersistedEntityState>,
  before: Readonly<PersistedEntityState>,
): PersistedEntityState {
  const restored: PersistedEntityState = {
    format: 1,
    state: structuredClone(before.state),
    versions: structuredClone(before.versions),
    processedThrough: current.processedThrough,
    processedFingerprint: current.processedFingerprint,
    ...(current.readPoints ? { readPoints: structuredClone(current.readPoints) } : {}),
  };
  const point =
    before.processedFingerprint !== null && before.processedThrough >= 0
      ? { index: before.processedThrough, fingerprint: before.processedFingerprint }
      : before.restoredReadPoint;
  if (point && point.index !== current.processedThrough) restored.restoredReadPoint = { ...point };
  return restored;
}

/**
 * The session's extractions that changed the entity state, as undoable epochs (kind `extraction`) in
 * core's {@link EpochLog} in the session's store: each is recorded with the state it replaced, after
 * the write that replaced it (a crash in between leaves an extraction that cannot be undone, never an
 * epoch for a state that was never written). `undo` writes the saved state back, then takes the epoch
 * and every later one from the log. Emits `epoch-recorded` and `epoch-undone`.
 * @see docs/strategies/entity-extraction.md
 */
export class ExtractionEpochs {
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
   * Records a write of the state that added versions (changed a value); a write that only moved the
   * read point is no epoch. A store that fails here leaves the state as written, not undoable
   * (`strategy-warning`).
   */
  async recordWrite(replaced: PersistedEntityState, written: PersistedEntityState, turn: number): Promise<void> {
    if (written.versions.length <= replaced.versions.length) return;
    const from = Math.max(0, replaced.processedThrough + 1);
    const to = written.processedThrough + 1;
    let epoch: ReductionEpoch;
    try {
      epoch = await this.log.record(
        {
          kind: 'extraction',
          turn,
          description: extractionDescription(replaced, written),
          ...(to > from ? { range: { from, to } } : {}),
        },
        replaced,
      );
    } catch (error) {
      safeEmit(this.context.events, 'strategy-warning', {
        ...this.eventBase(turn),
        message:
          `${this.context.strategyId}: the extraction stands but could not be recorded as an epoch, so it ` +
          `cannot be undone: ${error instanceof Error ? error.message : String(error)}`,
      });
      return;
    }
    safeEmit(this.context.events, 'epoch-recorded', { ...this.eventBase(turn), epoch });
  }

  /** The recorded extractions, oldest first. */
  list(): Promise<ReductionEpoch[]> {
    return this.log.list();
  }

  /**
   * Writes the state from before `epochId` back through `restore`, then removes the epoch and every
   * later one from the log; `turn` names the session's turn in the event.
   * @throws EpochNotFoundError (`CTXKIT_EPOCH_NOT_FOUND`) when the session has no such epoch
   */
  async undo(epochId: string, restore: RestoreEntityState, turn: number): Promise<UndoResult> {
    const { undone, alsoUndone } = await this.log.undo<PersistedEntityState>(epochId, restore);
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
