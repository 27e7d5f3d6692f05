import type { ChatMessage, ITokenCounter, TokenCounterMeta, ToolDefinition } from '@ctxkit/core';

import type { CountCalibration } from './count-calibration';

/**
 * A token counter whose counts follow the provider's: every count of the wrapped counter times the
 * calibration's current correction, rounded up (so a budget proven with it errs towards fitting).
 * With no observation yet the correction is 1 and the counts are the wrapped counter's.
 */
export class CalibratedTokenCounter implements ITokenCounter {
  constructor(
    /** The counter whose counts are corrected (ctxkit's BPE or heuristic counter). */
    readonly raw: ITokenCounter,
    /** The correction, shared with whatever learns it from the provider's usage. */
    readonly calibration: CountCalibration,
  ) {}

  meta(): TokenCounterMeta {
    const meta = this.raw.meta();
    const correction = this.calibration.correction;
    if (correction === 1) return meta;
    const note =
      `counts × ${correction.toFixed(3)}, learned from the provider's reported input tokens ` +
      `over ${this.calibration.observations} calls`;
    return { ...meta, approximate: true, note: meta.note ? `${meta.note}; ${note}` : note };
  }

  count(text: string): number {
    return this.calibration.calibrate(this.raw.count(text));
  }

  countUpTo(text: string, limit: number): number {
    const correction = this.calibration.correction;
    const raw = this.raw.countUpTo(text, Math.ceil(limit / correction));
    return this.calibration.calibrate(raw);
  }

  countMessage(message: Readonly<ChatMessage>): number {
    return this.calibration.calibrate(this.raw.countMessage(message));
  }

  countMessages(messages: ReadonlyArray<Readonly<ChatMessage>>): number {
    let total = 0;
    for (const message of messages) total += this.countMessage(message);
    return total;
  }

  countTools(tools: ReadonlyArray<Readonly<ToolDefinition>>): number {
    return this.calibration.calibrate(this.raw.countTools(tools));
  }
}
