import * as fs from 'node:fs';
import * as path from 'node:path';

import type { ChatMessage } from '@ctxkit/core';
import { type ConversationRecord, createConformanceContext, loadConversations } from '@ctxkit/core/testing';

import { createStrategy } from './create-entity-extraction-strategy';

/**
 * Replays the real tau-bench airline conversations (MIT, bundled by @ctxkit/core) through the
 * strategy with the offline extractor and the airline schema, and measures (1) the share of derived
 * gold facts (user ids, reservation ids, flight numbers, dates, airports, payment ids, passenger
 * names and dates of birth) present in the state at the point of the gold action, and (2) the tokens sent per model
 * call against sending everything (the whole history fits gpt-4o's window in every record, so the sliding window sends
 * everything too). Set CTXKIT_PRINT_MEASUREMENT=1 to print the figures the docs page quotes.
 */
const airlineSchema = JSON.parse(
  fs.readFileSync(path.join(__dirname, '..', 'schemas', 'airline-booking.schema.json'), 'utf8'),
) as Record<string, unknown>;

/** The kind of a gold argument, by the last part of its path (`flights[0].date` → `date`). */
const CATEGORIES = [
  'user_id',
  'reservation_id',
  'flight_number',
  'date',
  'origin',
  'destination',
  'payment_id',
  'first_name',
  'last_name',
  'dob',
] as const;
type Category = (typeof CATEGORIES)[number];

function categoryOf(question: string): { fn: string; category: Category } | null {
  const match = /^Gold action \d+ \((\w+)\): value of (.+)\?$/.exec(question);
  if (!match) return null;
  const leaf = match[2]!
    .replace(/\[\d+\]/g, '')
    .split('.')
    .pop()!;
  const category = CATEGORIES.find((name) => name === leaf);
  return category ? { fn: match[1]!, category } : null;
}

function containsValue(value: unknown, wanted: string): boolean {
  if (typeof value === 'string') return value === wanted;
  if (Array.isArray(value)) return value.some((item) => containsValue(item, wanted));
  if (value && typeof value === 'object') return Object.values(value).some((item) => containsValue(item, wanted));
  return false;
}

interface Tally {
  facts: number;
  /** The answer is the value of a state field, or of a property or item at any depth. */
  inState: number;
  /** The answer appears verbatim in `JSON.stringify(state)`. */
  inStateText: number;
  inPayload: number;
}

interface Measurement {
  records: number;
  composeCalls: number;
  byCategory: Record<Category, Tally>;
  sentTokens: number;
  everythingTokens: number;
  stateTokens: number;
}

async function measure(records: readonly ConversationRecord[], recentTurns: number): Promise<Measurement> {
  const empty = (): Tally => ({ facts: 0, inState: 0, inStateText: 0, inPayload: 0 });
  const result: Measurement = {
    records: 0,
    composeCalls: 0,
    byCategory: Object.fromEntries(CATEGORIES.map((name) => [name, empty()])) as Record<Category, Tally>,
    sentTokens: 0,
    everythingTokens: 0,
    stateTokens: 0,
  };
  for (const record of records) {
    const facts = (record.facts ?? [])
      .filter((fact) => fact.origin === 'derived:gold-action-argument' && typeof fact.answer === 'string')
      .map((fact) => ({ fact, kind: categoryOf(fact.question) }))
      .filter(
        (entry): entry is { fact: typeof entry.fact; kind: NonNullable<typeof entry.kind> } => entry.kind !== null,
      );
    result.records++;
    const { context } = createConformanceContext(
      `measure-${record.id}`,
      { agentId: 'airline-agent', strategyId: 'std-entity-extraction-strategy', llm: undefined },
      undefined,
    );
    const strategy = createStrategy({ stateSchema: airlineSchema, recentTurns, lean: true }, context);
    // The point of each gold action: the first assistant message calling that function (messages index).
    const pointOf = (fn: string) =>
      record.messages.findIndex(
        (message) =>
          message.role === 'assistant' && (message.tool_calls ?? []).some((call) => call.function.name === fn),
      );
    const checks = new Map<number, typeof facts>();
    for (const entry of facts) {
      const point = pointOf(entry.kind.fn);
      if (point === -1) continue;
      checks.set(point, [...(checks.get(point) ?? []), entry]);
    }
    for (let point = 1; point < record.messages.length; point++) {
      if (record.messages[point]!.role !== 'assistant') continue;
      const history = record.messages.slice(1, point) as ChatMessage[];
      if (!history.some((message) => message.role === 'user')) continue;
      const payload = await strategy.composePayload(record.systemPrompt, history, record.tools ?? []);
      result.composeCalls++;
      result.sentTokens += payload.stats.output_tokens;
      result.everythingTokens += payload.stats.input_tokens;
      result.stateTokens += (payload.stats.extra!['entities'] as { stateTokens: number }).stateTokens;
      const due = checks.get(point);
      if (!due) continue;
      const state = await strategy.getState();
      const sent = JSON.stringify(payload.messages);
      for (const { fact, kind } of due) {
        const tally = result.byCategory[kind.category];
        tally.facts++;
        if (containsValue(state, fact.answer!)) tally.inState++;
        if (JSON.stringify(state).includes(fact.answer!)) tally.inStateText++;
        if (sent.includes(fact.answer!)) tally.inPayload++;
      }
    }
  }
  return result;
}

function share(part: number, whole: number): string {
  return whole === 0 ? 'n/a' : `${((100 * part) / whole).toFixed(1)}%`;
}

describe('offline extractor on tau-bench airline', () => {
  describe('#measure', () => {
    it(
      'keeps at least 90% of the derived gold arguments in the state at the gold action while sending a fraction ' +
        'of the tokens',
      async () => {
        const records = loadConversations('tau-bench-airline');
        const m = await measure(records, 1);
        const all = Object.values(m.byCategory).reduce(
          (sum, t) => ({
            facts: sum.facts + t.facts,
            inState: sum.inState + t.inState,
            inStateText: sum.inStateText + t.inStateText,
            inPayload: sum.inPayload + t.inPayload,
          }),
          { facts: 0, inState: 0, inStateText: 0, inPayload: 0 },
        );
        if (process.env['CTXKIT_PRINT_MEASUREMENT']) {
          const lines = [
            `records ${m.records}, compose calls ${m.composeCalls}`,
            ...Object.entries(m.byCategory).map(
              ([name, t]) =>
                `${name}: ${t.facts} facts, in state ${t.inState} (${share(t.inState, t.facts)}), verbatim in the ` +
                `state JSON ${t.inStateText} (${share(t.inStateText, t.facts)}), in payload ${t.inPayload} ` +
                `(${share(t.inPayload, t.facts)})`,
            ),
            `all: ${all.facts} facts, in state ${all.inState} (${share(all.inState, all.facts)}), verbatim in the ` +
              `state JSON ${all.inStateText} (${share(all.inStateText, all.facts)}), in payload ${all.inPayload} ` +
              `(${share(all.inPayload, all.facts)})`,
            `tokens per call: sent ${(m.sentTokens / m.composeCalls).toFixed(0)}, ` +
              `everything ${(m.everythingTokens / m.composeCalls).toFixed(0)}, ` +
              `ratio ${(m.sentTokens / m.everythingTokens).toFixed(3)}, state ` +
              `block ${(m.stateTokens / m.composeCalls).toFixed(0)}`,
          ];
          process.stdout.write(`${lines.join('\n')}\n`);
        }
        expect(all.facts).toBeGreaterThan(500);
        expect(all.inState / all.facts).toBeGreaterThan(0.9);
        expect(m.sentTokens).toBeLessThan(m.everythingTokens * 0.8);
      },
    );
  });
});
