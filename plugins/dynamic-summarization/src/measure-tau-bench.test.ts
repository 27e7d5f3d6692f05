import {
  createTokenCounter,
  CtxkitEventBus,
  type LLMPayload,
  MemoryContextStore,
  ModelRegistry,
  type StrategyContext,
} from '@ctxkit/core';
import { type ConversationRecord, loadConversations } from '@ctxkit/core/testing';

import { createStrategy } from './create-summarization-strategy';
import type { SummarizationConfig } from './summarization-config';

/*
 * Measurement on the bundled tau-bench airline conversations (MIT) with the offline extractive
 * summarizer (no LLM): tokens sent per turn, the budget used once history leaves the payload, and
 * the share of derived facts (gold-action argument values) in the final payload, overall and among
 * those whose evidence left the verbatim window. The baseline is the same strategy with
 * summarization off, which is the sliding window's rules. Set CTXKIT_MEASURE=1 to print the numbers.
 */

// Windows that drop only what must go (cutBackRatio 1), so that the budget used measures the summary's room.
const BUDGET: Partial<SummarizationConfig> = {
  model: 'gpt-4o',
  maxContextTokens: 4096,
  reserveOutputTokens: 512,
  cutBackRatio: 1,
};
const SUMMARIZING: Partial<SummarizationConfig> = {
  ...BUDGET,
  threshold: 4,
  batchTurns: 2,
  summaryMaxTokens: 512,
  summarizer: 'offline',
};
// No room for a summary: the payload is the sliding window's (newest history that fits).
const WINDOW_ONLY: Partial<SummarizationConfig> = { ...BUDGET, threshold: 1_000_000, memoryShare: 0 };

const counter = createTokenCounter({ model: 'gpt-4o' });

function context(sessionId: string): StrategyContext {
  return {
    agentId: 'measure',
    sessionId,
    strategyId: 'std-summarization-strategy',
    model: 'gpt-4o',
    counter,
    counterFor: () => counter,
    models: new ModelRegistry(),
    store: new MemoryContextStore(),
    events: new CtxkitEventBus(),
    llm: undefined,
    now: () => 0,
  };
}

interface Replay {
  tokensPerTurn: number[];
  final: LLMPayload;
}

async function replay(record: ConversationRecord, config: Partial<SummarizationConfig>): Promise<Replay> {
  const strategy = createStrategy(config, context(record.id.replace(/[^A-Za-z0-9._:@-]/g, '-')));
  const history = record.history;
  const tokensPerTurn: number[] = [];
  for (let index = 0; index < history.length; index++) {
    if (history[index]!.role !== 'user') continue;
    await strategy.onTurnComplete(history.slice(0, index));
    await strategy.whenIdle();
    tokensPerTurn.push(
      (await strategy.composePayload(record.systemPrompt, history.slice(0, index + 1), [])).stats.output_tokens,
    );
  }
  await strategy.onTurnComplete(history);
  await strategy.whenIdle();
  const final = await strategy.composePayload(record.systemPrompt, history, []);
  await strategy.dispose();
  return { tokensPerTurn, final };
}

/** History indexes that are not verbatim in the payload (dropped or summarized). */
function leftWindow(payload: LLMPayload): (index: number) => boolean {
  const ranges = payload.stats.reductions.filter(
    (record) => record.action === 'dropped' || record.action === 'summarized',
  );
  return (index) => ranges.some((record) => index >= record.from && index < record.to);
}

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((sorted.length - 1) * p))] ?? 0;
}

describe('dynamic summarization on tau-bench (offline summarizer)', () => {
  it('keeps tokens per turn bounded and keeps most facts that leave the window', async () => {
    const records = loadConversations('tau-bench-airline');
    const summaryFinal: number[] = [];
    const windowFinal: number[] = [];
    const summaryMax: number[] = [];
    let available = 0;
    let windowAtBudget = 0;
    let factsLeftSummary = 0;
    let factsKeptSummary = 0;
    let factsLeftWindow = 0;
    let factsKeptWindow = 0;
    let summarizedConversations = 0;
    const utilisation: number[] = [];
    const present = { summarization: 0, slidingWindow: 0, facts: 0 };
    for (const record of records) {
      const summarized = await replay(record, SUMMARIZING);
      const windowed = await replay(record, WINDOW_ONLY);
      available = summarized.final.stats.budget.available;
      summaryFinal.push(summarized.final.stats.output_tokens);
      windowFinal.push(windowed.final.stats.output_tokens);
      summaryMax.push(Math.max(...summarized.tokensPerTurn, summarized.final.stats.output_tokens));
      if (windowed.final.stats.dropped > 0) windowAtBudget++;
      if (summarized.final.stats.summarized > 0) summarizedConversations++;
      expect(summarized.final.stats.output_tokens).toBeLessThanOrEqual(available);
      if (summarized.final.stats.dropped + summarized.final.stats.summarized > 0)
        utilisation.push(summarized.final.stats.output_tokens / available);
      for (const fact of record.facts ?? []) {
        if (!fact.answer) continue;
        present.facts++;
        if (JSON.stringify(summarized.final.messages).includes(fact.answer)) present.summarization++;
        if (JSON.stringify(windowed.final.messages).includes(fact.answer)) present.slidingWindow++;
      }

      for (const [payload, isSummary] of [
        [summarized.final, true],
        [windowed.final, false],
      ] as const) {
        const left = leftWindow(payload);
        const text = JSON.stringify(payload.messages);
        for (const fact of record.facts ?? []) {
          if (!fact.answer || fact.evidence_message_indexes.length === 0) continue;
          if (!fact.evidence_message_indexes.every((index) => left(index - 1))) continue;
          const kept = text.includes(fact.answer);
          if (isSummary) {
            factsLeftSummary++;
            if (kept) factsKeptSummary++;
          } else {
            factsLeftWindow++;
            if (kept) factsKeptWindow++;
          }
        }
      }
    }
    const mean = (values: number[]): number =>
      Math.round(values.reduce((a, b) => a + b, 0) / Math.max(1, values.length));
    const report = {
      conversations: records.length,
      available,
      summarizedConversations,
      finalTokens: {
        summarization: {
          mean: mean(summaryFinal),
          p50: percentile(summaryFinal, 0.5),
          p95: percentile(summaryFinal, 0.95),
          max: Math.max(...summaryFinal),
        },
        slidingWindow: {
          mean: mean(windowFinal),
          p50: percentile(windowFinal, 0.5),
          p95: percentile(windowFinal, 0.95),
          max: Math.max(...windowFinal),
        },
      },
      summarizationMaxPerTurn: Math.max(...summaryMax),
      meanUtilisationWhenReduced: utilisation.reduce((a, b) => a + b, 0) / Math.max(1, utilisation.length),
      factsInFinalPayload: present,
      slidingWindowConversationsAtBudget: windowAtBudget,
      factsLeftWindow: {
        summarization: {
          left: factsLeftSummary,
          survive: factsKeptSummary,
          share: factsLeftSummary ? factsKeptSummary / factsLeftSummary : 0,
        },
        slidingWindow: {
          left: factsLeftWindow,
          survive: factsKeptWindow,
          share: factsLeftWindow ? factsKeptWindow / factsLeftWindow : 0,
        },
      },
    };
    if (process.env.CTXKIT_MEASURE) process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);

    expect(summarizedConversations).toBeGreaterThan(100);
    // The summary is added to the newest history that fits: the budget is used, and the final
    // payload holds at least the facts the sliding window holds.
    expect(report.meanUtilisationWhenReduced).toBeGreaterThan(0.85);
    expect(present.summarization).toBeGreaterThanOrEqual(present.slidingWindow);
  });
});
