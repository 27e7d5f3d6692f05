import 'reflect-metadata';

import * as fs from 'node:fs';
import * as path from 'node:path';

import {
  type AssistantMessage,
  BudgetExceededError,
  type ChatMessage,
  type ContextRuntime,
  createContextRuntime,
  type ReasoningItem,
  type ToolDefinition,
} from '@ctxkit/core';
import { type ConversationRecord, loadConversations } from '@ctxkit/core/testing';
import { findProviderProblems } from '@ctxkit/kernel';

/**
 * Real conversations whose assistant messages carry provider reasoning (Anthropic thinking blocks
 * with signatures, OpenAI reasoning items), replayed at small budgets through every standard strategy
 * loaded as a user loads it: every payload must pass the provider's own rules (the Anthropic and
 * OpenAI Responses validity checks, thinking and reasoning rules included), and every reasoning item
 * in a payload must sit, unchanged, on the message it came with, next to the same tool calls: no
 * strategy edits, splits or reorders opaque items (compaction blocks and items included).
 */

type Flavour = 'anthropic' | 'openai-responses';

const airlineSchema = JSON.parse(
  fs.readFileSync(
    path.join(__dirname, '..', '..', '..', 'plugins', 'entity-extraction', 'schemas', 'airline-booking.schema.json'),
    'utf8',
  ),
) as Record<string, unknown>;

const STRATEGIES: Array<{ pluginId: string; config: Record<string, unknown>; openHands: boolean }> = [
  { pluginId: 'std-sliding-window-strategy', config: {}, openHands: true },
  { pluginId: 'std-summarization-strategy', config: {}, openHands: true },
  { pluginId: 'std-entity-extraction-strategy', config: { stateSchema: airlineSchema }, openHands: false },
  { pluginId: 'std-tool-output-cache-strategy', config: {}, openHands: true },
  { pluginId: 'std-recall-strategy', config: {}, openHands: true },
];

/** Reasoning on every assistant message, and a compaction block or item (the provider's own summary) on every sixth. */
function reasoningFor(flavour: Flavour, message: AssistantMessage, index: number): ReasoningItem[] {
  const thought =
    `Step ${index}: ${message.tool_calls?.map((call) => call.function.name).join(', ') || 'answer'}. ` +
    `${'Check the policy before acting. '.repeat(1 + (index % 7))}`;
  const compacted = index % 6 === 1;
  if (flavour === 'anthropic') {
    const thinking: ReasoningItem = {
      provider: 'anthropic',
      data: {
        type: 'thinking',
        thinking: thought,
        signature: `EqQBCkYIBxgCKkB${index.toString(36)}${'Qx'.repeat(40)}`,
      },
    };
    const compaction: ReasoningItem = {
      provider: 'anthropic',
      data: {
        type: 'compaction',
        content: `Earlier: ${thought}`,
        encrypted_content: null,
        signature: `EsgC${index}${'Zk'.repeat(30)}`,
      },
    };
    return compacted ? [compaction, thinking] : [thinking];
  }
  const reasoning: ReasoningItem = {
    provider: 'openai',
    data: {
      type: 'reasoning',
      id: `rs_${index}`,
      summary: [{ type: 'summary_text', text: thought }],
      encrypted_content: `gAAAAAB${'k9'.repeat(60)}${index}`,
    },
  };
  const compaction: ReasoningItem = {
    provider: 'openai',
    data: { type: 'compaction', id: `cmp_${index}`, encrypted_content: `gAAAAAC${'c7'.repeat(40)}${index}` },
  };
  return compacted ? [compaction, reasoning] : [reasoning];
}

/** The record with reasoning on every assistant message (as a thinking model produces it). */
function withReasoning(record: ConversationRecord, flavour: Flavour): ChatMessage[] {
  return record.history.map((message, index) =>
    message.role === 'assistant' ? { ...message, reasoning: reasoningFor(flavour, message, index) } : message,
  );
}

function composePoints(history: readonly ChatMessage[]): number[] {
  const points: number[] = [];
  for (let end = 1; end <= history.length; end++) {
    const last = history[end - 1]!;
    if (last.role === 'user' || (last.role === 'tool' && history[end]?.role !== 'tool')) points.push(end);
  }
  return points;
}

/** Every reasoning item in the payload is on a message of the history with the same content and calls. */
function misplacedReasoning(payload: readonly ChatMessage[], history: readonly ChatMessage[]): string[] {
  const originals = new Map<string, AssistantMessage>();
  for (const message of history)
    if (message.role === 'assistant' && message.reasoning) originals.set(JSON.stringify(message.reasoning), message);
  const problems: string[] = [];
  payload.forEach((message, index) => {
    if (message.role !== 'assistant' || !message.reasoning) return;
    const original = originals.get(JSON.stringify(message.reasoning));
    if (!original) problems.push(`payload[${index}]: reasoning that no history message carries (edited or moved)`);
    else if (JSON.stringify(original.tool_calls ?? []) !== JSON.stringify(message.tool_calls ?? []))
      problems.push(`payload[${index}]: reasoning separated from its tool calls`);
  });
  return problems;
}

describe('reasoning and thinking blocks through every strategy', () => {
  let runtime: ContextRuntime;
  beforeAll(async () => {
    runtime = await createContextRuntime();
  });
  afterAll(async () => {
    await runtime.dispose();
  });

  const tau = loadConversations('tau-bench-airline').filter((_, index) => index % 25 === 0);
  const openHands = loadConversations('openhands-multi-swe-bench');

  for (const strategy of STRATEGIES) {
    it(
      `${strategy.pluginId}: payloads the Anthropic and OpenAI Responses rules accept, reasoning kept with its ` +
        `calls`,
      async () => {
        const cases: Array<{ record: ConversationRecord; ceiling: number }> = [
          ...tau.flatMap((record) => [2000, 4000].map((ceiling) => ({ record, ceiling }))),
          ...(strategy.openHands ? openHands.map((record) => ({ record, ceiling: 8000 })) : []),
        ];
        let composed = 0;
        let withBlocks = 0;
        for (const [caseIndex, { record, ceiling }] of cases.entries()) {
          const flavour: Flavour = caseIndex % 2 === 0 ? 'anthropic' : 'openai-responses';
          const agent = await runtime.loadAgent({
            id: `reasoning-${ceiling}`,
            contextStrategy: {
              type: 'plugin',
              pluginId: strategy.pluginId,
              config: { ...strategy.config, maxContextTokens: ceiling, reserveOutputTokens: 0 },
            },
          });
          const session = agent.forSession(`${record.id}/${flavour}`);
          const history = withReasoning(record, flavour);
          const tools = (record.tools ?? []) as ToolDefinition[];
          for (const end of composePoints(history)) {
            const seen = history.slice(0, end);
            let payload;
            try {
              payload = await session.composePayload(record.systemPrompt, seen, tools);
            } catch (error) {
              if (error instanceof BudgetExceededError) continue;
              throw error;
            }
            composed++;
            if (payload.messages.some((message) => message.role === 'assistant' && message.reasoning)) withBlocks++;
            const problems = [
              ...findProviderProblems(flavour, payload.messages).map(
                (problem) => `${problem.rule} at ${problem.index}: ${problem.detail}`,
              ),
              ...misplacedReasoning(payload.messages, seen),
            ];
            if (problems.length > 0)
              throw new Error(`${record.id} at ${ceiling} (${flavour}), ${end} messages:\n${problems.join('\n')}`);
            if (seen[seen.length - 1]!.role === 'user' || end === history.length) {
              await session.onTurnComplete(seen);
              await (session as { whenIdle?: () => Promise<void> }).whenIdle?.();
            }
          }
        }
        expect(composed).toBeGreaterThan(100);
        expect(withBlocks).toBeGreaterThan(composed / 2);
      },
      120_000,
    );
  }
});
