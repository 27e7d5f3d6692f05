import 'reflect-metadata';

import * as fs from 'node:fs';
import * as path from 'node:path';

import {
  type ChatMessage,
  type ContextRuntime,
  createContextRuntime,
  createTokenCounter,
  type LLMPayload,
  type ToolDefinition,
} from '@ctxkit/core';
import { contentText, findPayloadProblems } from '@ctxkit/core/strategy-kit';
import {
  type BundledConversationName,
  type ConversationRecord,
  freezeDeep,
  loadConversations,
} from '@ctxkit/core/testing';

/**
 * A pinned message survives long replays under every standard strategy: agents loaded as a user
 * loads them (createContextRuntime → loadAgent with a manifest that pins the first user message →
 * forSession) replay the bundled tau-bench and OpenHands conversations at a 4,000-token ceiling,
 * 200 composePayload calls per strategy and conversation file (a fresh session per record; the three
 * OpenHands runs are replayed again in new sessions until the 200 calls are made). Every payload must
 * start with the system prompt, unaltered, its system messages followed by the pinned block's user
 * message holding the first user message verbatim, hold that text once, stay within budget, be valid
 * for providers and report the pin; the recorded histories are never changed.
 *
 * OpenHands' system prompt and tool definitions alone take 2,900 of the 3,600 available tokens, so
 * its replays send no tool definitions (the history keeps its tool calls and results) and let the
 * pins take 40% of the budget: its first user message, the task, is 1,343 tokens.
 */

const CEILING = 4000;
const CALLS = 200;
const counter = createTokenCounter({ model: 'gpt-4o' });
const airlineSchema = JSON.parse(
  fs.readFileSync(
    path.join(__dirname, '..', '..', '..', 'plugins', 'entity-extraction', 'schemas', 'airline-booking.schema.json'),
    'utf8',
  ),
) as Record<string, unknown>;

const STRATEGIES: Array<{ pluginId: string; config: Record<string, unknown> }> = [
  // Dropping only what must go: its default keeps the conversation's first messages (the pinned one) in front of a cut
  // window.
  { pluginId: 'std-sliding-window-strategy', config: { cutBackRatio: 1 } },
  { pluginId: 'std-summarization-strategy', config: {} },
  { pluginId: 'std-entity-extraction-strategy', config: { stateSchema: airlineSchema } },
  { pluginId: 'std-tool-output-cache-strategy', config: {} },
];

const DATA: Array<{ name: BundledConversationName; sendTools: boolean; pinShare: number }> = [
  { name: 'tau-bench-airline', sendTools: true, pinShare: 0.25 },
  { name: 'openhands-multi-swe-bench', sendTools: false, pinShare: 0.4 },
];

/** Where an agent composes: before each assistant message (after a user message or a tool step), and at the end. */
function composePoints(history: readonly ChatMessage[]): number[] {
  const points: number[] = [];
  for (let end = 1; end < history.length; end++) if (history[end]!.role === 'assistant') points.push(end);
  points.push(history.length);
  return points;
}

/** How many times `text` appears in the payload's message texts (split on it: n occurrences make n + 1 pieces). */
function occurrences(payload: LLMPayload, text: string): number {
  return payload.messages.reduce((total, message) => total + contentText(message.content).split(text).length - 1, 0);
}

/** What is wrong with one payload, or nothing. */
function problemsOf(payload: LLMPayload, record: ConversationRecord, task: string): string[] {
  const problems: string[] = [];
  const first = payload.messages[0];
  if (first?.role !== 'system' || contentText(first.content) !== record.systemPrompt)
    problems.push('the payload does not start with the system prompt, unaltered');
  let lead = 0;
  while (payload.messages[lead]?.role === 'system') lead++;
  const pinned = payload.messages[lead];
  if (pinned?.role !== 'user' || !contentText(pinned.content).endsWith(`<pinned>\n[pin p1 · task]\n${task}\n</pinned>`))
    problems.push('the system messages are not followed by the pinned task in a user message');
  const seen = occurrences(payload, task);
  if (seen !== 1) problems.push(`the task appears ${seen} times`);
  const tokens = counter.countMessages(payload.messages) + counter.countTools(payload.tools);
  if (tokens > payload.stats.budget.available) problems.push(`${tokens} tokens over ${payload.stats.budget.available}`);
  for (const problem of findPayloadProblems(payload.messages)) problems.push(`${problem.problem} at ${problem.index}`);
  const pins = payload.stats.extra?.pins as { ids?: string[] } | undefined;
  if (pins?.ids?.join() !== 'p1') problems.push(`stats.extra.pins is ${JSON.stringify(pins)}`);
  return problems;
}

describe('a pinned message survives 200 turns of real conversations', () => {
  let runtime: ContextRuntime;
  const records = new Map(DATA.map(({ name }) => [name, freezeDeep(loadConversations(name))]));
  const snapshots = new Map([...records].map(([name, loaded]) => [name, JSON.stringify(loaded)]));

  beforeAll(async () => {
    runtime = await createContextRuntime();
  });

  afterAll(async () => {
    await runtime.dispose();
    for (const [name, loaded] of records) expect(JSON.stringify(loaded)).toBe(snapshots.get(name));
  });

  for (const strategy of STRATEGIES) {
    it(`${strategy.pluginId}: tau-bench and OpenHands at ${CEILING} tokens, ${CALLS} calls each`, async () => {
      for (const data of DATA) {
        const agent = await runtime.loadAgent({
          id: `pins-${data.name}`,
          pins: [{ message: 'first-user', label: 'task' }],
          pinShare: data.pinShare,
          contextStrategy: {
            type: 'plugin',
            pluginId: strategy.pluginId,
            config: { ...strategy.config, maxContextTokens: CEILING, reserveOutputTokens: 0 },
          },
        });
        const all = records.get(data.name)!;
        // Records spread over the file, so that 200 calls see many conversations.
        const order = all.map((_, index) => (index * 37) % all.length);
        const failures: string[] = [];
        let calls = 0;
        /** Payloads that left the pinned message's place in the history out: without the pin, the task was gone. */
        let leftOut = 0;
        for (let round = 0; calls < CALLS; round++) {
          const record = all[order[round % all.length]!]!;
          const session = agent.forSession(`${data.name}-${round}`);
          const tools = data.sendTools ? ((record.tools ?? []) as ToolDefinition[]) : [];
          const taskIndex = record.history.findIndex((message) => message.role === 'user');
          const task = contentText(record.history[taskIndex]!.content);
          for (const end of composePoints(record.history)) {
            if (calls === CALLS) break;
            const history = record.history.slice(0, end);
            const payload = await session.composePayload(record.systemPrompt, history, tools);
            calls++;
            for (const problem of problemsOf(payload, record, task))
              failures.push(`${record.id} at ${end}: ${problem}`);
            if (
              payload.stats.reductions.some(
                (reduction) =>
                  reduction.action !== 'truncated' && reduction.from <= taskIndex && taskIndex < reduction.to,
              )
            )
              leftOut++;
            await session.onTurnComplete(history);
            await (session as { whenIdle?: () => Promise<void> }).whenIdle?.();
          }
          expect(await session.pins()).toEqual([
            expect.objectContaining({ id: 'p1', label: 'task', role: 'user', text: task }),
          ]);
        }
        await agent.dispose();
        expect(calls).toBe(CALLS);
        // The replays reach the point where the strategy leaves the pinned message's place out.
        expect(leftOut).toBeGreaterThan(10);
        expect(failures.slice(0, 10)).toEqual([]);
      }
    }, 120_000);
  }
});
