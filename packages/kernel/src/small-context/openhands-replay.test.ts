import 'reflect-metadata';

import * as path from 'node:path';

import {
  type AssistantMessage,
  type ChatMessage,
  type ContextRuntime,
  createContextRuntime,
  type ILLMClient,
} from '@ctxkit/core';
import { findPayloadProblems } from '@ctxkit/core/strategy-kit';
import { type ConversationRecord, loadConversations, ScriptedLLMClient } from '@ctxkit/core/testing';

import type { RunBudgetReport } from '../budget/run-budget-report';
import { createAgent } from '../create-agent';
import type { AgentTool } from '../tools/agent-tool';

/**
 * The small-context modes on real trajectories: the bundled OpenHands runs (MIT) replayed through the kernel at 4K,
 * 8K and 16K windows — the scripted model answers with the recorded assistant messages, the tools
 * with the recorded outputs — with the sliding window and the tool-output cache strategies. Every
 * payload must fit its budget and be valid. Set CTXKIT_REPLAY_REPORT=1 to print the numbers.
 */
const pluginsDir = path.join(__dirname, '..', '..', '..', '..', 'plugins');
const WINDOWS = [4096, 8192, 16384] as const;
const STRATEGIES = ['std-sliding-window-strategy', 'std-tool-output-cache-strategy'] as const;
const COMPACT_SYSTEM_PROMPT =
  'You are a coding agent working in a repository under /workspace. Explore with execute_bash, read and edit files ' +
  'with str_replace_editor (view with view_range for large files), make minimal changes, run the tests, then ' +
  'call finish.';
const ESSENTIAL_TOOLS = ['execute_bash', 'str_replace_editor'];

interface Segment {
  user: string;
  assistants: AssistantMessage[];
}

function segments(record: ConversationRecord): Segment[] {
  const out: Segment[] = [];
  for (const message of record.history) {
    if (message.role === 'user')
      out.push({
        user:
          typeof message.content === 'string'
            ? message.content
            : message.content.map((p) => (p.type === 'text' ? p.text : '')).join(''),
        assistants: [],
      });
    else if (message.role === 'assistant') out[out.length - 1]?.assistants.push(message);
  }
  return out;
}

function recordedOutputs(record: ConversationRecord): Map<string, string> {
  const outputs = new Map<string, string>();
  for (const message of record.history)
    if (message.role === 'tool')
      outputs.set(
        message.tool_call_id,
        typeof message.content === 'string' ? message.content : message.content.map((p) => p.text).join(''),
      );
  return outputs;
}

interface ReplayNumbers {
  calls: number;
  tokensPerCall: number[];
  maxUsedOverAvailable: number;
  modesFired: RunBudgetReport['modesFired'];
  preSendSteps: Record<string, number>;
  toolOutputsCut: number;
  invalid: number;
}

async function replay(
  runtime: ContextRuntime,
  record: ConversationRecord,
  strategy: string,
  window: number,
): Promise<ReplayNumbers> {
  const handle = await runtime.loadAgent({
    id: 'openhands-coder',
    model: 'gpt-4o',
    systemPrompt: record.systemPrompt,
    compactSystemPrompt: COMPACT_SYSTEM_PROMPT,
    essentialTools: ESSENTIAL_TOOLS,
    contextStrategy: { type: 'plugin', pluginId: strategy, config: { maxContextTokens: window } },
  });
  const outputs = recordedOutputs(record);
  const tools: AgentTool[] = (record.tools ?? []).map((definition) => ({
    definition,
    execute: (_args: unknown, context: { toolCallId: string }) => outputs.get(context.toolCallId) ?? 'ok',
  }));
  const parts = segments(record);
  const script = parts.flatMap((part) =>
    part.assistants.map((message) => ({
      content: message.content,
      ...(message.tool_calls ? { tool_calls: message.tool_calls } : {}),
    })),
  );
  const llm = new ScriptedLLMClient(script);
  // One model for the agent and its strategy: the strategy's own calls (compaction, without tools)
  // get a summary; the agent's calls get the recorded answers, in order.
  const compactions = new ScriptedLLMClient(
    [
      '<retain>The task and the files touched so far.</retain>\n<summary>Work so far: the repository was explored ' +
        'and the failing tests located.</summary>',
    ],
    { repeatLast: true },
  );
  const model: ILLMClient = {
    name: 'scripted-openhands',
    defaultModel: 'gpt-4o',
    offline: true,
    complete: (request) => (request.tools ? llm.complete(request) : compactions.complete(request)),
  };
  const agent = createAgent(handle, { llm: model, tools });
  const numbers: ReplayNumbers = {
    calls: 0,
    tokensPerCall: [],
    maxUsedOverAvailable: 0,
    modesFired: { A: 0, B: 0, C: 0, D: 0 },
    preSendSteps: {},
    toolOutputsCut: 0,
    invalid: 0,
  };
  try {
    for (const part of parts) {
      const result = await agent.run(part.user, { maxSteps: part.assistants.length, waitForIdle: true });
      numbers.tokensPerCall.push(...result.budget.tokensPerCall);
      for (const mode of ['A', 'B', 'C', 'D'] as const) numbers.modesFired[mode] += result.budget.modesFired[mode];
      for (const check of result.budget.preSendChecks)
        for (const step of check.steps) numbers.preSendSteps[step.step] = (numbers.preSendSteps[step.step] ?? 0) + 1;
      numbers.toolOutputsCut += result.budget.toolOutputs.filter((report) => report.truncated).length;
      result.payloads.forEach((stats, index) => {
        const sent = result.budget.tokensPerCall[index]!;
        numbers.maxUsedOverAvailable = Math.max(numbers.maxUsedOverAvailable, sent / stats.budget.available);
      });
    }
    for (const request of llm.requests) {
      numbers.calls++;
      const messages = request.messages as ChatMessage[];
      if (findPayloadProblems(messages).length > 0) numbers.invalid++;
    }
    return numbers;
  } finally {
    await handle.dispose();
  }
}

describe('OpenHands trajectories through the kernel at small windows', () => {
  let runtime: ContextRuntime;
  const records = loadConversations('openhands-multi-swe-bench');
  const table: string[] = [];

  beforeAll(async () => {
    runtime = await createContextRuntime({
      pluginDirs: STRATEGIES.map((id) =>
        path.join(pluginsDir, id === 'std-sliding-window-strategy' ? 'sliding-window' : 'tool-output-cache'),
      ),
      discoverInstalled: false,
    });
  });

  afterAll(() => {
    if (process.env.CTXKIT_REPLAY_REPORT) process.stdout.write(`${table.join('\n')}\n`);
  });

  for (const strategy of STRATEGIES) {
    for (const window of WINDOWS) {
      it(`fits and keeps valid every payload at ${window} tokens with ${strategy}`, async () => {
        const totals: ReplayNumbers = {
          calls: 0,
          tokensPerCall: [],
          maxUsedOverAvailable: 0,
          modesFired: { A: 0, B: 0, C: 0, D: 0 },
          preSendSteps: {},
          toolOutputsCut: 0,
          invalid: 0,
        };
        for (const record of records) {
          const numbers = await replay(runtime, record, strategy, window);
          expect(numbers.calls).toBe(record.history.filter((m) => m.role === 'assistant').length);
          expect(numbers.invalid).toBe(0);
          expect(numbers.maxUsedOverAvailable).toBeLessThanOrEqual(1);
          totals.calls += numbers.calls;
          totals.tokensPerCall.push(...numbers.tokensPerCall);
          totals.maxUsedOverAvailable = Math.max(totals.maxUsedOverAvailable, numbers.maxUsedOverAvailable);
          for (const mode of ['A', 'B', 'C', 'D'] as const) totals.modesFired[mode] += numbers.modesFired[mode];
          for (const [step, count] of Object.entries(numbers.preSendSteps))
            totals.preSendSteps[step] = (totals.preSendSteps[step] ?? 0) + count;
          totals.toolOutputsCut += numbers.toolOutputsCut;
        }
        const sorted = [...totals.tokensPerCall].sort((a, b) => a - b);
        const mean = Math.round(sorted.reduce((sum, t) => sum + t, 0) / sorted.length);
        table.push(
          `${strategy} @ ${window}: calls ${totals.calls}, tokens/call mean ${mean} ` +
            `median ${sorted[Math.floor(sorted.length / 2)]} max ${sorted[sorted.length - 1]}, ` +
            `max used/available ${totals.maxUsedOverAvailable.toFixed(3)}, modes fired A ${totals.modesFired.A} ` +
            `B ${totals.modesFired.B} C ${totals.modesFired.C} D ${totals.modesFired.D}, ` +
            `tool outputs cut ${totals.toolOutputsCut}, pre-send steps ${JSON.stringify(totals.preSendSteps)}`,
        );
        if (window <= 8192) expect(totals.modesFired.C).toBe(totals.calls);
        if (window === 16384) expect(totals.modesFired.C).toBe(0);
      });
    }
  }
});
