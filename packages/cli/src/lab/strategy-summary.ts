import type { EpochKind, ReductionEpoch } from '@ctxkit/core';

import type { CallObservation } from './call-observation';
import { type CacheTtl, type InputPrice, payloadInputCost } from './input-price';
import { mean, percentile } from './percentile';

/** Why a strategy rejected calls: one error code, the first line of its first message, and how many calls. */
export interface RejectionReason {
  code: string;
  /** The first line of the first rejected call's message with this code (the message ends with its fix). */
  message: string;
  calls: number;
}

/** One strategy's results on one transcript: the comparison table's row. */
export interface StrategySummary {
  strategyId: string;
  /** Label shown in tables (plugin id, or agent id when comparing agent manifests). */
  label: string;
  dataset: string;
  window: number;
  /** The payload ceiling at this window: `maxContextTokens − reserveOutputTokens`. */
  budget: number;
  conversations: number;
  calls: number;
  tokensPerCall: { mean: number; p95: number; max: number };
  everythingPerCall: { mean: number; p95: number; max: number };
  /** Tokens not sent, summed over calls, against sending everything. */
  tokensSaved: number;
  /** Share of tokens saved against sending everything (0-1). */
  savedShare: number;
  dropped: number;
  summarized: number;
  trimmed: number;
  compacted: number;
  /** Payloads with a provider-validity problem (orphan result, dangling call, leading tool message). */
  invalidPayloads: number;
  overBudgetPayloads: number;
  /** Calls that composePayload rejected with a typed error. */
  rejectedCalls: number;
  rejectedCodes: string[];
  /** The rejections by error code, most calls first. */
  rejections: RejectionReason[];
  /**
   * Share of facts present in the payload composed at the moment each is needed (a rejected call holds none); null
   * without facts.
   */
  factRetention: number | null;
  factChecks: number;
  msPerCall: { mean: number; p95: number };
  /**
   * Share of payload tokens that repeat the previous payload's start (a provider's prompt cache can
   * serve them), over the calls where the whole history no longer fits; null when it always fits.
   */
  repeatedPrefixShare: number | null;
  /** The same share over every call after the first of each conversation. */
  repeatedPrefixShareAllCalls: number | null;
  /**
   * Share of all input tokens, over every call (each conversation's first included), that a
   * prompt cache serves: the repeated prefixes over the tokens sent. What the bill's cache reads
   * are of its input; null when nothing was sent.
   */
  cacheHitRatio: number | null;
  /**
   * Estimated input cost per conversation in USD, with the price table entry it used and the time
   * to live of the cache writes it priced.
   */
  inputCostPerConversation?: { price: string; withoutCache: number; withCache: number; cacheTtl: CacheTtl };
  /**
   * What a user controls over what survives, as seen in the replay: undoable epochs recorded (by kind)
   * and the receipts of accepted summaries (each fold once).
   */
  control: {
    epochs: number;
    epochsByKind: Partial<Record<EpochKind, number>>;
    receipts: number;
    /** Receipts of summaries that were re-prompted once before they were accepted. */
    reprompted: number;
    /** Items the accepted summaries had to keep (all kept), and items they dropped that stay in the history. */
    itemsKept: number;
    itemsDropped: number;
    /**
     * Calls made with at least one pin, and those whose payload held every pin verbatim; null when pins were not
     * checked.
     */
    pins: { calls: number; kept: number } | null;
  };
  /** Mean tokens sent at each call index (the chart's series). */
  perCallSeries: number[];
  everythingSeries: number[];
}

/** Folds call observations into a summary row. */
export function summarizeObservations(
  strategyId: string,
  label: string,
  dataset: string,
  window: number,
  conversations: number,
  observations: readonly CallObservation[],
  price?: { key: string; price: InputPrice; cacheTtl?: CacheTtl },
  epochs: readonly ReductionEpoch[] = [],
): StrategySummary {
  const ttl = price?.cacheTtl ?? '5m';
  const sent = observations.filter((o) => !o.error);
  const sentTokens = sent.map((o) => o.sentTokens);
  const everything = observations.map((o) => o.everythingTokens);
  const saved = sent.reduce((sum, o) => sum + Math.max(0, o.everythingTokens - o.sentTokens), 0);
  const everythingTotal = sent.reduce((sum, o) => sum + o.everythingTokens, 0);
  const factChecks = observations.reduce((sum, o) => sum + o.factsActive, 0);
  const factHits = observations.reduce((sum, o) => sum + o.factsPresent, 0);
  const rejected = observations.filter((o) => o.error);
  return {
    strategyId,
    label,
    dataset,
    window,
    budget: observations[0]?.budget ?? window,
    conversations,
    calls: observations.length,
    tokensPerCall: { mean: mean(sentTokens), p95: percentile(sentTokens, 95), max: Math.max(0, ...sentTokens) },
    everythingPerCall: { mean: mean(everything), p95: percentile(everything, 95), max: Math.max(0, ...everything) },
    tokensSaved: saved,
    savedShare: everythingTotal > 0 ? saved / everythingTotal : 0,
    dropped: sum(sent, 'dropped'),
    summarized: sum(sent, 'summarized'),
    trimmed: sum(sent, 'trimmed'),
    compacted: sum(sent, 'compacted'),
    invalidPayloads: sent.filter((o) => o.problems.length > 0).length,
    overBudgetPayloads: sent.filter((o) => o.overBudget).length,
    rejectedCalls: rejected.length,
    rejectedCodes: [...new Set(rejected.map((o) => o.error!.code))].sort(),
    rejections: rejectionReasons(rejected),
    factRetention: factChecks > 0 ? factHits / factChecks : null,
    factChecks,
    msPerCall: {
      mean: mean(sent.map((o) => o.milliseconds)),
      p95: percentile(
        sent.map((o) => o.milliseconds),
        95,
      ),
    },
    repeatedPrefixShare: repeatedShare(sent.filter((o) => !o.fitsWhole && o.call > 0)),
    repeatedPrefixShareAllCalls: repeatedShare(sent.filter((o) => o.call > 0)),
    cacheHitRatio: repeatedShare(sent),
    ...(price === undefined || conversations === 0
      ? {}
      : {
          inputCostPerConversation: {
            price: price.key,
            withoutCache:
              sent.reduce(
                (total, o) => total + payloadInputCost(price.price, o.sentTokens, o.repeatedPrefixTokens, false),
                0,
              ) / conversations,
            withCache:
              sent.reduce(
                (total, o) => total + payloadInputCost(price.price, o.sentTokens, o.repeatedPrefixTokens, true, ttl),
                0,
              ) / conversations,
            cacheTtl: ttl,
          },
        }),
    control: controlSummary(sent, epochs),
    perCallSeries: seriesByCall(sent, (o) => o.sentTokens),
    everythingSeries: seriesByCall(observations, (o) => o.everythingTokens),
  };
}

function controlSummary(
  sent: readonly CallObservation[],
  epochs: readonly ReductionEpoch[],
): StrategySummary['control'] {
  const epochsByKind: Partial<Record<EpochKind, number>> = {};
  for (const epoch of epochs) epochsByKind[epoch.kind] = (epochsByKind[epoch.kind] ?? 0) + 1;
  // A receipt stays in the payloads after its fold until the next one: count each once per conversation.
  const receipts = new Map<string, NonNullable<CallObservation['summaryReceipt']>>();
  for (const o of sent)
    if (o.summaryReceipt)
      receipts.set(`${o.recordId}\u0000${o.summaryReceipt.from}-${o.summaryReceipt.to}`, o.summaryReceipt);
  const accepted = [...receipts.values()];
  return {
    epochs: epochs.length,
    epochsByKind,
    receipts: accepted.length,
    reprompted: accepted.filter((receipt) => receipt.reprompted).length,
    itemsKept: accepted.reduce((total, receipt) => total + receipt.kept, 0),
    itemsDropped: accepted.reduce((total, receipt) => total + receipt.dropped, 0),
    pins: sent.some((o) => o.pins)
      ? {
          calls: sent.filter((o) => (o.pins?.active ?? 0) > 0).length,
          kept: sent.filter((o) => (o.pins?.active ?? 0) > 0 && o.pins!.kept === o.pins!.active).length,
        }
      : null,
  };
}

function rejectionReasons(rejected: readonly CallObservation[]): RejectionReason[] {
  const byCode = new Map<string, RejectionReason>();
  for (const { error } of rejected) {
    const reason = byCode.get(error!.code);
    if (reason) reason.calls += 1;
    else byCode.set(error!.code, { code: error!.code, message: error!.message.split('\n')[0]!.trim(), calls: 1 });
  }
  return [...byCode.values()].sort((a, b) => b.calls - a.calls || (a.code < b.code ? -1 : 1));
}

function repeatedShare(observations: readonly CallObservation[]): number | null {
  const sent = observations.reduce((total, o) => total + o.sentTokens, 0);
  return sent > 0 ? observations.reduce((total, o) => total + o.repeatedPrefixTokens, 0) / sent : null;
}

function sum(
  observations: readonly CallObservation[],
  field: 'dropped' | 'summarized' | 'trimmed' | 'compacted',
): number {
  return observations.reduce((total, o) => total + o[field], 0);
}

function seriesByCall(observations: readonly CallObservation[], value: (o: CallObservation) => number): number[] {
  const totals: number[] = [];
  const counts: number[] = [];
  for (const o of observations) {
    totals[o.call] = (totals[o.call] ?? 0) + value(o);
    counts[o.call] = (counts[o.call] ?? 0) + 1;
  }
  return totals.map((total, index) => Math.round(total / (counts[index] ?? 1)));
}
