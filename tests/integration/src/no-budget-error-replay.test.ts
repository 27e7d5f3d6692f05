import 'reflect-metadata';

import * as fs from 'node:fs';
import * as path from 'node:path';

import {
  BudgetExceededError,
  type ChatMessage,
  type ContextRuntime,
  createContextRuntime,
  createTokenCounter,
  type ToolDefinition,
} from '@ctxkit/core';
import { findPayloadProblems } from '@ctxkit/core/strategy-kit';
import { type ConversationRecord, loadConversations } from '@ctxkit/core/testing';

/**
 * Every standard strategy, loaded as a user loads it (createContextRuntime → loadAgent → forSession),
 * replays every bundled conversation turn by turn at 2,000 / 4,000 / 8,000 / 16,000-token ceilings:
 * no composePayload may reject with a budget error while the system prompt, the tools and the newest
 * user message fit, and every payload is within budget and valid. (The long LoCoMo conversations are
 * measured by `npm run quality` at the same four ceilings, which reports calls that threw per strategy and ceiling.)
 *
 * `npm test` replays every sixth tau-bench record and every OpenHands run; the full replay of every
 * record runs with CTXKIT_CONFORMANCE_DEPTH=full (`npm run test:conformance`, which CI runs).
 */

const CEILINGS = [2000, 4000, 8000, 16000];
const FULL = process.env.CTXKIT_CONFORMANCE_DEPTH === 'full';
/** Every record at full depth; every sixth otherwise (all of a file with few records). */
const recordsOf = (name: 'tau-bench-airline' | 'openhands-multi-swe-bench') =>
  loadConversations(name).filter((_, index, all) => FULL || all.length <= 10 || index % 6 === 0);
const counter = createTokenCounter({ model: 'gpt-4o' });
const airlineSchema = JSON.parse(
  fs.readFileSync(
    path.join(__dirname, '..', '..', '..', 'plugins', 'entity-extraction', 'schemas', 'airline-booking.schema.json'),
    'utf8',
  ),
) as Record<string, unknown>;

const STRATEGIES: Array<{
  pluginId: string;
  config: Record<string, unknown>;
  data: Array<'tau-bench-airline' | 'openhands-multi-swe-bench'>;
}> = [
  { pluginId: 'std-sliding-window-strategy', config: {}, data: ['tau-bench-airline', 'openhands-multi-swe-bench'] },
  { pluginId: 'std-summarization-strategy', config: {}, data: ['tau-bench-airline', 'openhands-multi-swe-bench'] },
  { pluginId: 'std-entity-extraction-strategy', config: { stateSchema: airlineSchema }, data: ['tau-bench-airline'] },
  { pluginId: 'std-tool-output-cache-strategy', config: {}, data: ['tau-bench-airline', 'openhands-multi-swe-bench'] },
];

/** The compose points of a record: at each user message, and at the end. */
function composePoints(history: readonly ChatMessage[]): number[] {
  const points: number[] = [];
  for (let end = 1; end < history.length; end++) if (history[end - 1]!.role === 'user') points.push(end);
  points.push(history.length);
  return points;
}

/** The least a payload needs: system prompt, tools and the newest user message (truncated to a marker at worst). */
function mandatoryTokens(record: ConversationRecord, tools: readonly ToolDefinition[]): number {
  return counter.countMessages([{ role: 'system', content: record.systemPrompt }]) + counter.countTools(tools) + 16;
}

describe('no budget error on real conversations', () => {
  let runtime: ContextRuntime;

  beforeAll(async () => {
    runtime = await createContextRuntime();
  });

  afterAll(async () => {
    await runtime.dispose();
  });

  for (const strategy of STRATEGIES) {
    it(
      `${strategy.pluginId}: ${FULL ? 'every' : 'a sixth of the'} bundled conversations ` +
        `at ${CEILINGS.join(' / ')} tokens`,
      async () => {
        let composed = 0;
        let rejected = 0;
        for (const ceiling of CEILINGS) {
          const agent = await runtime.loadAgent({
            id: `replay-${ceiling}`,
            contextStrategy: {
              type: 'plugin',
              pluginId: strategy.pluginId,
              config: { ...strategy.config, maxContextTokens: ceiling, reserveOutputTokens: 0 },
            },
          });
          for (const name of strategy.data) {
            for (const record of recordsOf(name)) {
              const session = agent.forSession(`${name}-${record.id.replace(/[^A-Za-z0-9._:@-]/g, '-')}`);
              const tools = (record.tools ?? []) as ToolDefinition[];
              const fits = mandatoryTokens(record, tools) <= Math.floor(ceiling * 0.9);
              for (const end of composePoints(record.history)) {
                const history = record.history.slice(0, end);
                if (!history.some((message) => message.role === 'user')) continue;
                try {
                  const payload = await session.composePayload(record.systemPrompt, history, tools);
                  composed++;
                  expect(
                    counter.countMessages(payload.messages) + counter.countTools(payload.tools),
                  ).toBeLessThanOrEqual(payload.stats.budget.available);
                  expect(findPayloadProblems(payload.messages)).toEqual([]);
                } catch (error) {
                  if (!(error instanceof BudgetExceededError) || fits) throw error;
                  rejected++;
                }
                await session.onTurnComplete(history);
                await (session as { whenIdle?: () => Promise<void> }).whenIdle?.();
              }
            }
          }
          await agent.dispose();
        }
        expect(composed).toBeGreaterThan(FULL ? 500 : 150);
        // OpenHands' system prompt and tools alone pass the two smallest ceilings: those calls must reject.
        if (strategy.data.includes('openhands-multi-swe-bench')) expect(rejected).toBeGreaterThan(0);
      },
      600_000,
    );
  }
});
