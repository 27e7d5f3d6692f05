import * as fs from 'node:fs';
import * as path from 'node:path';

import {
  type ChatMessage,
  type ContextSession,
  createContextRuntime,
  createTokenCounter,
  hasWhenIdle,
} from '@ctxkit/core';

import { payloadText } from '../../lab/payload-text';
import { replayPoints } from '../../lab/replay-points';
import { sessionIdFor } from '../../lab/session-id';
import { mergeConfig } from '../../lab/sweep-grid';
import { locomoFile } from '../locomo-file';
import { repositoryRoot } from '../repository-root';
import { type StrategyVariant, variant } from '../strategy-variant';
import { PayloadText } from './evidence-presence';
import type { LongMemoryConversation } from './long-memory-conversation';
import { plainBm25Payload } from './plain-bm25-reference';
import { readLocomo, readLongMemEval } from './read-long-memory';

/** The environment variable that points the harness at a LongMemEval_S JSONL file. */
export const LONGMEMEVAL_PATH_VARIABLE = 'CTXKIT_LONGMEMEVAL_PATH';

/** The row label of the plain-BM25 reference. */
export const REFERENCE_LABEL = 'plain BM25 reference';

/** The ceilings the recall section measures. */
export const RECALL_CEILINGS = [4000, 8000, 16000];

/** The strategies the recall section measures, beside the reference. */
export function recallVariants(): StrategyVariant[] {
  return [
    variant('sliding window', 'std-sliding-window-strategy'),
    variant('summarization', 'std-summarization-strategy'),
    variant('tool-output cache', 'std-tool-output-cache-strategy'),
    variant('recall', 'std-recall-strategy'),
    variant('summarization + recall', 'std-summarization-strategy', { recall: {} }),
  ];
}

/** One strategy (or the reference) on one data set at one ceiling. */
export interface RecallQualityRow {
  dataset: string;
  ceiling: number;
  strategy: string;
  /** The plugin id, or `reference`. */
  pluginId: string;
  questions: number;
  evidenceTurns: number;
  evidencePresent: number;
  /** Share of the evidence turns present in the payload composed for their question. */
  evidenceShare: number;
  /** Questions with a short answer worth looking for. */
  answersChecked: number;
  answersPresent: number;
  answerShare: number | null;
  /** `evidenceShare` over the reference's at the same data set and ceiling. */
  ratioToReference: number | null;
  /** What the done-when bar asks: 1.1× the reference, or halfway from it to 100%, whichever is lower. */
  target: number | null;
  meanTokens: number;
  seconds: number;
}

/** What {@link runRecallQuality} measures. */
export interface RecallQualityOptions {
  /** Only these data sets (`longmemeval`, `locomo`). */
  dataset?: string[];
  ceiling?: number[];
  /** Only these strategies: a row label or a plugin id (the reference is always measured). */
  strategy?: string[];
  /** At most this many conversations per data set. */
  limit?: number;
  /** Measure these variants instead of {@link recallVariants} (a sweep of settings). */
  variants?: StrategyVariant[];
  pluginDir?: string[];
  /** Config keys per plugin id, over each of its variants' (`--config <id>=<json>`). */
  config?: Record<string, Record<string, unknown>>;
  onStart?(total: number): void;
  onStep?(label: string): void;
  onRow?(row: RecallQualityRow): void;
}

/** The recall section's rows, and what was not measured. */
export interface RecallQualityResult {
  rows: RecallQualityRow[];
  skipped: Array<{ dataset: string; reason: string }>;
}

/**
 * Where the LongMemEval_S slice is read from: `$CTXKIT_LONGMEMEVAL_PATH`, else `../shared/data/` beside the repository.
 */
export function longMemEvalFile(env: NodeJS.ProcessEnv = process.env): { file: string; exists: boolean } {
  const file =
    env[LONGMEMEVAL_PATH_VARIABLE] || path.resolve(repositoryRoot(), '..', 'shared', 'data', 'longmemeval-s-dev.jsonl');
  return { file, exists: fs.existsSync(file) };
}

/**
 * Recall of earlier turns on long-memory data. Each conversation is replayed through the strategy as
 * an agent loop would (a compose before each answer, `onTurnComplete` after each turn, background
 * work awaited), with the runtime's clock at each session's date. Then each annotated question is
 * asked once, as the newest user message, with no turn end after it. Per question: the share of its
 * evidence turns present in that payload (verbatim, or 80% of their words in 8-word runs) and whether
 * its short answer is there. Beside the strategies, the plain-BM25 reference at the same ceiling.
 */
export async function runRecallQuality(options: RecallQualityOptions = {}): Promise<RecallQualityResult> {
  const counter = createTokenCounter({ model: 'gpt-4o' });
  const skipped: RecallQualityResult['skipped'] = [];
  const sources: Array<{ name: string; read: () => Promise<LongMemoryConversation[]> }> = [];
  const longMemEval = longMemEvalFile();
  const locomo = locomoFile();
  const wantsDataset = (name: string) => !options.dataset?.length || options.dataset.includes(name);
  if (wantsDataset('longmemeval')) {
    if (longMemEval.exists)
      sources.push({ name: 'longmemeval', read: () => readLongMemEval(longMemEval.file, options.limit) });
    else
      skipped.push({
        dataset: 'longmemeval',
        reason: `LongMemEval_S not found at ${longMemEval.file} (set ${LONGMEMEVAL_PATH_VARIABLE})`,
      });
  }
  if (wantsDataset('locomo')) {
    if (locomo.exists) sources.push({ name: 'locomo', read: () => readLocomo(locomo.file, options.limit) });
    else
      skipped.push({
        dataset: 'locomo',
        reason: `LoCoMo not found at ${locomo.file}; it is licensed for non-commercial use only and never bundled`,
      });
  }
  const all = options.variants ?? recallVariants();
  // A strategy named for the facts section only (entity extraction) is not an error here: it is skipped.
  const variants = all.filter(
    (v) => !options.strategy?.length || options.strategy.some((name) => v.label === name || v.pluginId === name),
  );
  const ceilings = options.ceiling?.length ? options.ceiling : RECALL_CEILINGS;

  if (variants.length === 0) return { rows: [], skipped };
  const loaded: Array<{ name: string; conversations: LongMemoryConversation[] }> = [];
  for (const source of sources) loaded.push({ name: source.name, conversations: await source.read() });
  options.onStart?.(
    loaded.reduce((sum, set) => sum + set.conversations.length, 0) * ceilings.length * (variants.length + 1),
  );

  const rows: RecallQualityRow[] = [];
  for (const { name, conversations } of loaded) {
    for (const ceiling of ceilings) {
      const reference = referenceRow(name, ceiling, conversations, counter, options);
      rows.push(reference);
      options.onRow?.(reference);
      for (const strategy of variants) {
        const row = await strategyRow(name, ceiling, strategy, conversations, counter, reference, options);
        rows.push(row);
        options.onRow?.(row);
      }
    }
  }
  return { rows, skipped };
}

/** Tallies of one row while it is measured. */
class Tally {
  questions = 0;
  evidenceTurns = 0;
  evidencePresent = 0;
  answersChecked = 0;
  answersPresent = 0;
  tokens = 0;

  add(
    conversation: LongMemoryConversation,
    question: LongMemoryConversation['questions'][number],
    payload: ReadonlyArray<ChatMessage>,
    tokens: number,
  ): void {
    const text = new PayloadText(payloadText(payload));
    this.questions++;
    this.tokens += tokens;
    for (const index of question.evidence) {
      this.evidenceTurns++;
      const turn = conversation.history[index]!;
      if (text.holdsTurn(typeof turn.content === 'string' ? turn.content : payloadText([turn]))) this.evidencePresent++;
    }
    if (question.answer !== undefined) {
      this.answersChecked++;
      if (text.holdsAnswer(question.answer)) this.answersPresent++;
    }
  }

  row(
    key: { dataset: string; ceiling: number; strategy: string; pluginId: string },
    reference: RecallQualityRow | undefined,
    seconds: number,
  ): RecallQualityRow {
    const evidenceShare = this.evidenceTurns === 0 ? 0 : this.evidencePresent / this.evidenceTurns;
    const base = reference?.evidenceShare;
    return {
      ...key,
      questions: this.questions,
      evidenceTurns: this.evidenceTurns,
      evidencePresent: this.evidencePresent,
      evidenceShare,
      answersChecked: this.answersChecked,
      answersPresent: this.answersPresent,
      answerShare: this.answersChecked === 0 ? null : this.answersPresent / this.answersChecked,
      ratioToReference: base === undefined || base === 0 ? null : evidenceShare / base,
      target: base === undefined ? null : Math.min(1.1 * base, (1 + base) / 2),
      meanTokens: this.questions === 0 ? 0 : Math.round(this.tokens / this.questions),
      seconds,
    };
  }
}

function referenceRow(
  dataset: string,
  ceiling: number,
  conversations: LongMemoryConversation[],
  counter: ReturnType<typeof createTokenCounter>,
  options: RecallQualityOptions,
): RecallQualityRow {
  const started = performance.now();
  const tally = new Tally();
  for (const conversation of conversations) {
    for (const question of conversation.questions) {
      const asked: ChatMessage = { role: 'user', content: question.text };
      const payload = plainBm25Payload(conversation.systemPrompt, conversation.history, asked, ceiling, counter);
      tally.add(conversation, question, payload, counter.countMessages(payload));
    }
    options.onStep?.(`${dataset} · ${ceiling} · ${REFERENCE_LABEL}`);
  }
  return tally.row({ dataset, ceiling, strategy: REFERENCE_LABEL, pluginId: 'reference' }, undefined, seconds(started));
}

async function strategyRow(
  dataset: string,
  ceiling: number,
  strategy: StrategyVariant,
  conversations: LongMemoryConversation[],
  counter: ReturnType<typeof createTokenCounter>,
  reference: RecallQualityRow,
  options: RecallQualityOptions,
): Promise<RecallQualityRow> {
  const started = performance.now();
  const tally = new Tally();
  for (const conversation of conversations) {
    // One runtime per conversation: its clock follows the conversation's session dates.
    let clock = conversation.dates[0] ?? 0;
    const runtime = await createContextRuntime({ pluginDirs: options.pluginDir, now: () => clock });
    const agent = await runtime.loadAgent({
      id: 'recall-quality',
      contextStrategy: {
        type: 'plugin',
        pluginId: strategy.pluginId,
        config: mergeConfig(strategy.config(ceiling), options.config?.[strategy.pluginId] ?? {}),
      },
    });
    try {
      const session = agent.forSession(sessionIdFor(conversation.id));
      const messages: ChatMessage[] = [{ role: 'system', content: conversation.systemPrompt }, ...conversation.history];
      for (const point of replayPoints(messages)) {
        const history = conversation.history.slice(0, point.end - 1);
        clock = conversation.dates[Math.max(0, point.end - 2)] ?? clock;
        if (point.kind === 'compose') await session.composePayload(conversation.systemPrompt, history, []);
        else {
          await session.onTurnComplete(history);
          await idle(session);
        }
      }
      if (conversation.history[conversation.history.length - 1]?.role !== 'assistant') {
        // A record that ends on a message the model did not answer: the conversation still took place
        // then, so its last turn is reported complete at its own date, before the questions come.
        await session.onTurnComplete(conversation.history);
        await idle(session);
      }
      for (const question of conversation.questions) {
        clock = question.askedAt;
        const payload = await session.composePayload(
          conversation.systemPrompt,
          [...conversation.history, { role: 'user', content: question.text }],
          [],
        );
        tally.add(conversation, question, payload.messages, counter.countMessages(payload.messages));
      }
    } finally {
      await agent.dispose();
      await runtime.dispose();
    }
    options.onStep?.(`${dataset} · ${ceiling} · ${strategy.label}`);
  }
  return tally.row(
    { dataset, ceiling, strategy: strategy.label, pluginId: strategy.pluginId },
    reference,
    seconds(started),
  );
}

async function idle(session: ContextSession): Promise<void> {
  if (hasWhenIdle(session)) await session.whenIdle();
}

function seconds(started: number): number {
  return Math.round((performance.now() - started) / 100) / 10;
}
