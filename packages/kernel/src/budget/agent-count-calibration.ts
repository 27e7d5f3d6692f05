import { type IContextStore, type ITokenCounter, type StoreKey } from '@ctxkit/core';

import { CalibratedTokenCounter } from '../count-calibration/calibrated-token-counter';
import { CountCalibration, type CountCalibrationSnapshot } from '../count-calibration/count-calibration';
import { type AnchoredCount, type CountedPayload, UsageAnchoredCount } from '../count-calibration/usage-anchored-count';

/** The store session under which an agent's own state (not a conversation's) is kept. */
export const AGENT_STATE_SESSION_ID = 'agent';

/** What one model call taught the calibration (`result.budget.tokenCalibration`). */
export interface TokenCalibrationReport {
  /** The model call it was (0-based, within the run). */
  call: number;
  /** Tokens of the payload sent, by the agent's counter before correction. */
  rawTokens: number;
  /**
   * The estimate the kernel held the payload to: the provider's last report plus the calibrated new messages, else the
   * calibrated count.
   */
  estimatedTokens: number;
  /** The provider's reported input tokens (cached parts included). */
  reportedTokens: number;
  /** `(estimated - reported) / reported`. */
  relativeError: number;
  /** The correction after this call. */
  correction: number;
  /** True when the report was too far from any tokenizer's count to learn from. */
  ignored: boolean;
}

/** What {@link AgentCountCalibration} needs. */
export interface AgentCountCalibrationOptions {
  agentId: string;
  /** The model whose counts are calibrated (the correction is kept per model). */
  model: string;
  /** The agent's counter (before correction). */
  raw: ITokenCounter;
  /** Where the correction is kept between processes; without it, it lives as long as the agent. */
  store?: IContextStore;
}

function validSnapshot(value: unknown): CountCalibrationSnapshot | undefined {
  const snapshot = value as Partial<CountCalibrationSnapshot> | undefined;
  return snapshot && typeof snapshot.correction === 'number' && typeof snapshot.observations === 'number'
    ? (snapshot as CountCalibrationSnapshot)
    : undefined;
}

/**
 * An agent's token counts calibrated to its provider: one correction per model, learned from the
 * input tokens the provider reports for each payload, kept in the store (agent-wide, so that every
 * session and the next process start from it), and per session the size of the next payload
 * anchored on the provider's last report. The kernel holds payloads to these counts.
 * @see docs/13-token-counting.md
 */
export class AgentCountCalibration {
  private readonly calibration = new CountCalibration();
  private readonly sessions = new Map<string, UsageAnchoredCount>();
  private loaded: Promise<void> | undefined;
  /** The agent's counter with the correction applied. */
  readonly counter: CalibratedTokenCounter;

  constructor(private readonly options: AgentCountCalibrationOptions) {
    this.counter = new CalibratedTokenCounter(options.raw, this.calibration);
  }

  /** Loads the stored correction once; a missing, unreadable or malformed record starts from 1. */
  ready(): Promise<void> {
    this.loaded ??= this.load();
    return this.loaded;
  }

  /** The estimated provider count of a payload about to be sent in `sessionId`. */
  estimate(sessionId: string, payload: CountedPayload): AnchoredCount {
    return this.anchored(sessionId).count(payload);
  }

  /**
   * Learns from the provider's report for a payload just sent, anchors the session's next count on
   * it and stores the correction. Returns the report, or `undefined` when the provider reported no
   * input tokens. A store that fails to write is ignored: the correction still holds in memory.
   */
  async observe(
    sessionId: string,
    call: number,
    payload: CountedPayload,
    reportedTokens: number,
  ): Promise<TokenCalibrationReport | undefined> {
    const estimatedTokens = this.estimate(sessionId, payload).tokens;
    const observation = this.anchored(sessionId).record(payload, reportedTokens);
    if (observation === undefined) return undefined;
    if (!observation.ignored) await this.save();
    return {
      call,
      rawTokens: observation.rawTokens,
      estimatedTokens,
      reportedTokens,
      relativeError: (estimatedTokens - reportedTokens) / reportedTokens,
      correction: observation.correction,
      ignored: observation.ignored,
    };
  }

  private anchored(sessionId: string): UsageAnchoredCount {
    let count = this.sessions.get(sessionId);
    if (count === undefined) {
      count = new UsageAnchoredCount(this.options.raw, this.calibration);
      this.sessions.set(sessionId, count);
    }
    return count;
  }

  private key(): StoreKey {
    return {
      agentId: this.options.agentId,
      sessionId: AGENT_STATE_SESSION_ID,
      kind: 'state',
      name: `token-calibration:${this.options.model}`,
    };
  }

  private async load(): Promise<void> {
    if (!this.options.store) return;
    try {
      const snapshot = validSnapshot(await this.options.store.get(this.key()));
      if (snapshot) this.calibration.restore(snapshot);
    } catch {
      // an unreadable record: start from 1
    }
  }

  private async save(): Promise<void> {
    if (!this.options.store) return;
    try {
      await this.options.store.set(this.key(), this.calibration.snapshot());
    } catch {
      // the correction still holds in memory; the next call writes it again
    }
  }
}
