import type { CallObservation } from '../lab/call-observation';

/** One strategy variant on one data set at one ceiling: the harness's table row. */
export interface QualityRow {
  dataset: string;
  ceiling: number;
  strategy: string;
  pluginId: string;
  conversations: number;
  /** Payloads composed (one per replayed point), thrown calls included. */
  calls: number;
  /** Facts checked, each in the payload composed when it is needed. */
  factsChecked: number;
  factsPresent: number;
  /** Share of checked facts present (strict presence); null without facts or when not measured. */
  share: number | null;
  /**
   * `share` over the sliding window's share at the same data set and ceiling; null when either is missing or the
   * baseline is 0.
   */
  ratioToSlidingWindow: number | null;
  /** Facts not present whose tool output the payload still names by cache ref (one expansion away). */
  factsRecoverable: number;
  /** Mean tokens of the payloads sent (the same counter for every strategy); thrown calls excluded. */
  meanTokens: number;
  /**
   * Mean of payload tokens / `stats.budget.available` over the payloads where history was reduced; null when none was.
   */
  meanUtilisation: number | null;
  reducedPayloads: number;
  /** Calls that threw, by error code. */
  errors: Record<string, number>;
  /** Wall-clock seconds the replay took (background work awaited included). */
  seconds: number;
  /**
   * Set when the variant could not be measured at all (its config was rejected, ...), with the error's message in
   * `detail`.
   */
  notMeasured?: string;
  detail?: string;
}

/** Folds the observations of one variant on one data set at one ceiling into its row (ratio filled later). */
export function qualityRow(
  key: { dataset: string; ceiling: number; strategy: string; pluginId: string; conversations: number },
  observations: readonly CallObservation[],
  seconds = 0,
): QualityRow {
  const sent = observations.filter((o) => !o.error);
  const reduced = sent.filter((o) => o.reduced && o.available > 0);
  const factsChecked = sum(observations, (o) => o.factsActive);
  const factsPresent = sum(observations, (o) => o.factsPresent);
  const errors: Record<string, number> = {};
  for (const o of observations) if (o.error) errors[o.error.code] = (errors[o.error.code] ?? 0) + 1;
  return {
    ...key,
    calls: observations.length,
    factsChecked,
    factsPresent,
    share: factsChecked > 0 ? factsPresent / factsChecked : null,
    ratioToSlidingWindow: null,
    factsRecoverable: sum(observations, (o) => o.factsRecoverable),
    meanTokens: sent.length > 0 ? sum(sent, (o) => o.sentTokens) / sent.length : 0,
    meanUtilisation: reduced.length > 0 ? sum(reduced, (o) => o.sentTokens / o.available) / reduced.length : null,
    reducedPayloads: reduced.length,
    errors,
    seconds,
  };
}

/** A row for a variant that could not be measured. */
export function notMeasuredRow(
  key: { dataset: string; ceiling: number; strategy: string; pluginId: string; conversations: number },
  reason: string,
  detail: string,
): QualityRow {
  return {
    ...key,
    calls: 0,
    factsChecked: 0,
    factsPresent: 0,
    share: null,
    ratioToSlidingWindow: null,
    factsRecoverable: 0,
    meanTokens: 0,
    meanUtilisation: null,
    reducedPayloads: 0,
    errors: {},
    seconds: 0,
    notMeasured: reason,
    detail,
  };
}

function sum(observations: readonly CallObservation[], value: (o: CallObservation) => number): number {
  return observations.reduce((total, o) => total + value(o), 0);
}
