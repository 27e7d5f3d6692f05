/**
 * Settings of a {@link CountCalibration}. Defaults measured on coding-agent runs whose provider reported every prompt's
 * size.
 */
export interface CountCalibrationOptions {
  /** Share of the gap between the correction and a new observation's ratio closed per observation. @default 0.7 */
  learningRate?: number;
  /** Largest relative change of the correction per observation. @default 0.25 */
  maxStep?: number;
  /**
   * An observation whose ratio differs by more than this share from both the previous observation's
   * ratio and the current correction is an outlier until the next one confirms it: it moves the
   * correction a quarter as far. @default 0.3
   */
  outlierShare?: number;
  /** Smallest correction; a report below this ratio is ignored. @default 0.5 */
  minCorrection?: number;
  /** Largest correction; a report above this ratio is ignored. @default 3 */
  maxCorrection?: number;
}

/** What one observation taught: the estimate before it, the provider's count, the new correction. */
export interface CalibrationObservation {
  /** ctxkit's own count of the payload (before correction). */
  rawTokens: number;
  /** What the calibrated count said before this observation. */
  estimatedTokens: number;
  /** The provider's reported input tokens for the same payload. */
  reportedTokens: number;
  /** `(estimated - reported) / reported`: negative when ctxkit counted too few. */
  relativeError: number;
  /** The correction after this observation. */
  correction: number;
  /** True when the observation was damped as an outlier. */
  damped: boolean;
  /**
   * True when the ratio was outside [minCorrection, maxCorrection]: no tokenizer differs that much,
   * so the report is not about this payload (a test server, a proxy's own count); nothing was learned.
   */
  ignored: boolean;
}

/** A calibration as stored: enough to resume learning after a restart. */
export interface CountCalibrationSnapshot {
  correction: number;
  observations: number;
  /** Ratio reported / raw of the last observation. */
  lastRatio?: number;
  /** Mean absolute relative error of the estimates, over every observation so far. */
  meanAbsoluteError?: number;
}

const DEFAULTS: Required<CountCalibrationOptions> = {
  learningRate: 0.7,
  maxStep: 0.25,
  outlierShare: 0.3,
  minCorrection: 0.5,
  maxCorrection: 3,
};

/**
 * A per-model correction of ctxkit's token counts, learned from the input tokens the provider
 * reports for each payload. ctxkit counts with OpenAI's tokenizers; Claude, Gemini, Llama, Qwen and
 * Mistral count the same payload differently (Llama 4 on coding-agent runs: 1.07× to 1.46×). After a
 * few calls the corrected count follows the provider's: bounded steps, single outliers damped.
 */
export class CountCalibration {
  private readonly settings: Required<CountCalibrationOptions>;
  private value: number;
  private count: number;
  private lastRatio: number | undefined;
  private errorSum: number;

  constructor(options: CountCalibrationOptions = {}, snapshot?: CountCalibrationSnapshot) {
    this.settings = { ...DEFAULTS, ...options };
    if (!(this.settings.minCorrection > 0 && this.settings.minCorrection <= 1 && this.settings.maxCorrection >= 1)) {
      throw new RangeError(
        `CountCalibration: minCorrection must be in (0, 1] and maxCorrection at least 1 ` +
          `(got ${this.settings.minCorrection} and ${this.settings.maxCorrection}).`,
      );
    }
    this.value = 1;
    this.count = 0;
    this.errorSum = 0;
    if (snapshot) this.restore(snapshot);
  }

  /** Resumes from a stored snapshot (what {@link snapshot} gave), replacing what was learned so far. */
  restore(snapshot: CountCalibrationSnapshot): void {
    this.value = Number.isFinite(snapshot.correction) ? this.clamp(snapshot.correction) : 1;
    this.count =
      Number.isFinite(snapshot.observations) && snapshot.observations > 0 ? Math.floor(snapshot.observations) : 0;
    this.lastRatio = snapshot.lastRatio;
    this.errorSum = (snapshot.meanAbsoluteError ?? 0) * this.count;
  }

  /** The factor applied to raw counts (1 until something was observed). */
  get correction(): number {
    return this.value;
  }

  /** Observations so far. */
  get observations(): number {
    return this.count;
  }

  /** The calibrated count of `rawTokens`, rounded up. */
  calibrate(rawTokens: number): number {
    return Math.ceil(rawTokens * this.value);
  }

  /**
   * Learns from one payload: `rawTokens` is ctxkit's count, `reportedTokens` the provider's input
   * tokens for the same payload. Nonsense (non-positive or non-finite numbers) is ignored and
   * returns `undefined`.
   */
  observe(rawTokens: number, reportedTokens: number): CalibrationObservation | undefined {
    if (!(rawTokens > 0) || !(reportedTokens > 0) || !Number.isFinite(rawTokens) || !Number.isFinite(reportedTokens))
      return undefined;
    const estimatedTokens = this.calibrate(rawTokens);
    const relativeError = (estimatedTokens - reportedTokens) / reportedTokens;
    const ratio = reportedTokens / rawTokens;
    if (ratio < this.settings.minCorrection || ratio > this.settings.maxCorrection) {
      return {
        rawTokens,
        estimatedTokens,
        reportedTokens,
        relativeError,
        correction: this.value,
        damped: false,
        ignored: true,
      };
    }
    const far = (from: number) => Math.abs(ratio - from) > this.settings.outlierShare * from;
    const damped = this.lastRatio !== undefined && far(this.lastRatio) && far(this.value);
    const rate = damped ? this.settings.learningRate / 4 : this.settings.learningRate;
    const wanted = this.value + rate * (ratio - this.value);
    const step = Math.max(
      -this.settings.maxStep * this.value,
      Math.min(this.settings.maxStep * this.value, wanted - this.value),
    );
    this.value = this.clamp(this.value + step);
    this.lastRatio = ratio;
    this.count++;
    this.errorSum += Math.abs(relativeError);
    return {
      rawTokens,
      estimatedTokens,
      reportedTokens,
      relativeError,
      correction: this.value,
      damped,
      ignored: false,
    };
  }

  /** The state to store, so that the next process starts from what this one learned. */
  snapshot(): CountCalibrationSnapshot {
    return {
      correction: this.value,
      observations: this.count,
      ...(this.lastRatio === undefined ? {} : { lastRatio: this.lastRatio }),
      ...(this.count === 0 ? {} : { meanAbsoluteError: this.errorSum / this.count }),
    };
  }

  private clamp(value: number): number {
    return Math.min(this.settings.maxCorrection, Math.max(this.settings.minCorrection, value));
  }
}
