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
import { findProviderProblems, ThinkingPrefixBinding, toAnthropicMessages, toAnthropicTools } from '@ctxkit/kernel';

/**
 * Anthropic's prefix binding of preserved thinking, replayed on real conversations: tau-bench records
 * with signed thinking on every assistant message (a thinking block, a redacted one, or both), sent
 * as the agent loop sends them (one request before each assistant message), through every standard
 * strategy at 2,000 / 4,000 / 8,000 tokens, each payload reviewed by the conversation's
 * `ThinkingPrefixBinding`.
 *
 * The judge is a model of the API written apart from the binding: a block is accepted when the
 * serialized Anthropic request before its message (system, tools, messages) is byte for byte the
 * request the model answered when it wrote the block. Every request sent must pass it, pass the
 * validity check with the binding, and every block left out must be reported.
 */

const airlineSchema = JSON.parse(
  fs.readFileSync(
    path.join(__dirname, '..', '..', '..', 'plugins', 'entity-extraction', 'schemas', 'airline-booking.schema.json'),
    'utf8',
  ),
) as Record<string, unknown>;

const STRATEGIES: Array<{ pluginId: string; config: Record<string, unknown> }> = [
  { pluginId: 'std-sliding-window-strategy', config: {} },
  { pluginId: 'std-summarization-strategy', config: {} },
  { pluginId: 'std-entity-extraction-strategy', config: { stateSchema: airlineSchema } },
  { pluginId: 'std-tool-output-cache-strategy', config: {} },
  { pluginId: 'std-recall-strategy', config: {} },
];
const CEILINGS = [2000, 4000, 8000];

/**
 * Signed thinking for the assistant message at `index`: its id is in the signature (or data), so the judge knows which
 * request wrote it.
 */
function thinkingFor(message: AssistantMessage, index: number): ReasoningItem[] {
  const thought =
    `Step ${index}: ${message.tool_calls?.map((call) => call.function.name).join(', ') || 'answer'}. ` +
    `${'Check the policy before acting. '.repeat(1 + (index % 5))}`;
  const signed: ReasoningItem = {
    provider: 'anthropic',
    data: { type: 'thinking', thinking: thought, signature: `sig${index}_${'Qx'.repeat(30)}` },
  };
  const redacted: ReasoningItem = {
    provider: 'anthropic',
    data: { type: 'redacted_thinking', data: `red${index}_${'Zk'.repeat(30)}` },
  };
  if (index % 7 === 3) return [redacted];
  if (index % 5 === 2) return [signed, redacted];
  return [signed];
}

function withThinking(record: ConversationRecord): ChatMessage[] {
  return record.history.map((message, index) =>
    message.role === 'assistant' ? { ...message, reasoning: thinkingFor(message, index) } : message,
  );
}

/** The history index of the message that wrote a block, read from its signature or data. */
function writtenAt(block: Record<string, unknown>): number {
  const text = String(block.type === 'thinking' ? block.signature : block.data);
  return Number(/^(?:sig|red)(\d+)_/.exec(text)![1]);
}

function signedBlocks(messages: readonly ChatMessage[]): number {
  let count = 0;
  for (const message of messages)
    if (message.role === 'assistant')
      count += (message.reasoning ?? []).filter((item) => item.provider === 'anthropic').length;
  return count;
}

/** The judge: the request before each block, serialized as the Messages API receives it. */
class PrefixJudge {
  /** The serialized request sent before the assistant message at each history index. */
  private readonly answered = new Map<number, string>();

  private static serialize(system: string | undefined, tools: unknown, messages: unknown[]): string {
    return JSON.stringify({ system: system ?? null, tools, messages });
  }

  /** Blocks of `messages` the API would refuse, as problems. */
  refusals(messages: readonly ChatMessage[], tools: readonly ToolDefinition[]): string[] {
    const conversation = toAnthropicMessages(messages);
    const wireTools = toAnthropicTools(tools);
    const problems: string[] = [];
    conversation.messages.forEach((message, index) => {
      for (const block of message.content) {
        if (block.type !== 'thinking' && block.type !== 'redacted_thinking') continue;
        const at = writtenAt(block as Record<string, unknown>);
        const written = this.answered.get(at);
        if (written === undefined) continue;
        if (PrefixJudge.serialize(conversation.system, wireTools, conversation.messages.slice(0, index)) !== written)
          problems.push(`block written at history[${at}] sent after a changed prefix (Anthropic message ${index})`);
      }
    });
    return problems;
  }

  /** Records the request sent right before the assistant message at `historyIndex`. */
  sent(historyIndex: number, messages: readonly ChatMessage[], tools: readonly ToolDefinition[]): void {
    const conversation = toAnthropicMessages(messages);
    this.answered.set(
      historyIndex,
      PrefixJudge.serialize(conversation.system, toAnthropicTools(tools), conversation.messages),
    );
  }
}

describe('prefix-bound thinking through every strategy', () => {
  let runtime: ContextRuntime;
  beforeAll(async () => {
    runtime = await createContextRuntime();
  });
  afterAll(async () => {
    await runtime.dispose();
  });

  const tau = loadConversations('tau-bench-airline').filter((_, index) => index % 10 === 0);

  for (const strategy of STRATEGIES) {
    it(
      `${strategy.pluginId}: no request the API would refuse, every block left out reported ` +
        `(${CEILINGS.join(' / ')} tokens)`,
      async () => {
        let requests = 0;
        let leftOut = 0;
        let reported = 0;
        let kept = 0;
        for (const ceiling of CEILINGS) {
          const agent = await runtime.loadAgent({
            id: `thinking-${ceiling}`,
            contextStrategy: {
              type: 'plugin',
              pluginId: strategy.pluginId,
              config: { ...strategy.config, maxContextTokens: ceiling, reserveOutputTokens: 0 },
            },
          });
          for (const record of tau) {
            const session = agent.forSession(record.id);
            const binding = new ThinkingPrefixBinding();
            const judge = new PrefixJudge();
            const history = withThinking(record);
            const tools = (record.tools ?? []) as ToolDefinition[];
            for (let end = 1; end <= history.length; end++) {
              const next = history[end];
              const seen = history.slice(0, end);
              if (next?.role === 'assistant' || end === history.length) {
                let payload;
                try {
                  payload = await session.composePayload(record.systemPrompt, seen, tools);
                } catch (error) {
                  if (error instanceof BudgetExceededError) continue;
                  throw error;
                }
                const reviewed = binding.review(payload.messages, payload.tools);
                const problems = [
                  ...findProviderProblems('anthropic', reviewed.messages, {
                    thinkingBinding: binding,
                    tools: payload.tools,
                  }).map((problem) => `${problem.rule} at ${problem.index}: ${problem.detail}`),
                  ...judge.refusals(reviewed.messages, payload.tools),
                ];
                const removed = signedBlocks(payload.messages) - signedBlocks(reviewed.messages);
                const counted = reviewed.invalidated.reduce((sum, entry) => sum + entry.blocks, 0);
                if (removed !== counted) problems.push(`${removed} blocks left out, ${counted} reported`);
                for (const entry of reviewed.invalidated) {
                  const before = payload.messages[entry.messageIndex] as AssistantMessage;
                  const after = reviewed.messages[entry.messageIndex] as AssistantMessage;
                  if (signedBlocks([before]) !== entry.blocks || signedBlocks([after]) !== 0)
                    problems.push(`report at ${entry.messageIndex} does not match the message`);
                }
                if (problems.length > 0)
                  throw new Error(`${record.id} at ${ceiling}, ${end} messages:\n${problems.join('\n')}`);
                binding.commit(reviewed.messages, payload.tools);
                if (next?.role === 'assistant') {
                  judge.sent(end, reviewed.messages, payload.tools);
                  binding.recordAnswer(next);
                }
                requests++;
                leftOut += removed;
                reported += reviewed.invalidated.length;
                kept += signedBlocks(reviewed.messages);
              }
              if (history[end - 1]!.role === 'user' || end === history.length) {
                await session.onTurnComplete(seen);
                await (session as { whenIdle?: () => Promise<void> }).whenIdle?.();
              }
            }
          }
        }
        expect(requests).toBeGreaterThan(100);
        expect(kept).toBeGreaterThan(0);
        // The small windows force reductions: blocks are left out and each such message is reported.
        expect(leftOut).toBeGreaterThan(0);
        expect(reported).toBeGreaterThan(0);
      },
      300_000,
    );
  }
});
