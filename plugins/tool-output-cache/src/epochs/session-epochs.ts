import type { ITokenCounter, ReductionEpoch, StrategyContext } from '@ctxkit/core';
import { type EpochDescription, EpochLog, type TakenEpoch } from '@ctxkit/core/strategy-kit';

import { errorText } from '../cache/cached-outputs';
import type { CompactionDone, CompactorSnapshot } from '../compaction/compactor';
import type { StrategyEmit } from '../tool-output-cache-strategy';
import { isMicroCompacted, isTrimmed, toolNameAt } from '../view/lighter-form';
import type { ComposedView } from '../view/view-payload-composer';

/** Outputs a trim epoch's description names; the rest are counted. */
const LISTED_TRIMS = 8;

/** An output first shown as a placeholder: `position` in the caller's history, `tokens` of its placeholder. */
interface NewTrim {
  position: number;
  toolCallId: string;
  tokens: number;
}

/** What a compaction epoch keeps: the transcript of the history it replaced and what the compactor knew. */
export interface CompactionBefore {
  kind: 'compaction';
  /** `transcript:<name>`: the caller's history as it was passed to the compaction. */
  transcriptRef: string;
  compactor: CompactorSnapshot;
}

/** What a trim epoch keeps: the tool calls whose outputs it trimmed to a placeholder. */
export interface TrimBefore {
  kind: 'trim';
  toolCallIds: string[];
}

export type SavedBefore = CompactionBefore | TrimBefore;

/** `value` as a {@link SavedBefore}, or `undefined` when something else wrote it. */
export function asSavedBefore(value: unknown): SavedBefore | undefined {
  const saved = value as
    | { kind?: unknown; toolCallIds?: unknown; transcriptRef?: unknown; compactor?: Partial<CompactorSnapshot> }
    | null
    | undefined;
  const ids = saved?.toolCallIds;
  if (saved?.kind === 'trim' && Array.isArray(ids) && ids.every((id) => typeof id === 'string'))
    return { kind: 'trim', toolCallIds: ids as string[] };
  if (saved?.kind !== 'compaction' || typeof saved.transcriptRef !== 'string' || !saved.compactor?.backoff)
    return undefined;
  const { state, backoff } = saved.compactor;
  return { kind: 'compaction', transcriptRef: saved.transcriptRef, compactor: { state: state ?? null, backoff } };
}

/** One epoch to undo with the state it saved. */
export interface EpochToUndo {
  epoch: ReductionEpoch;
  /** `undefined` when not this strategy's: undone without a state to restore. */
  before: SavedBefore | undefined;
}

/**
 * The strategy's undoable reductions (compactions, trims) in the session's {@link EpochLog}, shared by every process
 * serving the session, and their events. A store failure to record is a `strategy-warning`, never a failed payload.
 * Each output a payload first shows as a placeholder (of the budget, micro-compact, or to fit) is kept once, in one
 * trim epoch a payload: the view's new placeholders and the lighter forms the layout used, only those the payload
 * carries (the history older than its window changes nothing it depends on).
 */
export class SessionEpochs {
  /** The session's epochs, oldest first in its `list()`. */
  readonly log: EpochLog;
  private readonly recordedTrims = new Set<string>();

  constructor(
    { store, agentId, sessionId, now }: Pick<StrategyContext, 'store' | 'agentId' | 'sessionId' | 'now'>,
    private readonly counter: ITokenCounter,
    private readonly emit: StrategyEmit,
  ) {
    this.log = new EpochLog({ store, agentId, sessionId, now: () => now() });
  }

  /** Records a reduction with the state it replaced. */
  private async record(description: EpochDescription, before: SavedBefore): Promise<void> {
    const epoch = await this.log.record(description, before).catch((error: unknown) => {
      this.emit('strategy-warning', description.turn, {
        message:
          `The ${description.kind} (${description.description}) could not be kept as an epoch, so it cannot ` +
          `be undone: ${errorText(error)}`,
      });
    });
    if (epoch) this.emit('epoch-recorded', description.turn, { epoch });
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
    this.emit('epoch-undone', turn, { epoch: taken.undone, alsoUndone: taken.alsoUndone, historyRestored });
    return taken;
  }

  /** Records the new placeholders of a composed payload, if any. */
  async recordTrims(composed: ComposedView, turn: number): Promise<void> {
    const trims = this.newTrims(composed);
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
    await this.record(description, { kind: 'trim', toolCallIds: trims.map((trim) => trim.toolCallId) });
  }

  /** Forgets outputs whose trim was undone: a later trim of one is new again. */
  forgetTrims(toolCallIds: Iterable<string>): void {
    for (const id of toolCallIds) this.recordedTrims.delete(id);
  }

  /** The payload's new placeholders in position order, recorded from now on. */
  private newTrims({ messages, prepared, lightenedAt, final }: ComposedView): NewTrim[] {
    const found = new Map<number, NewTrim>();
    for (const position of [...prepared.newPlaceholders, ...lightenedAt]) {
      if (position < final.window.fromIndex || found.has(position)) continue;
      const message = messages[position];
      if (message?.role !== 'tool' || this.recordedTrims.has(message.tool_call_id)) continue;
      if (!isTrimmed(message) && !isMicroCompacted(message)) continue;
      found.set(position, { position, toolCallId: message.tool_call_id, tokens: this.counter.countMessage(message) });
    }
    const trims = [...found.values()].sort((a, b) => a.position - b.position);
    for (const trim of trims) this.recordedTrims.add(trim.toolCallId);
    return trims;
  }
}
