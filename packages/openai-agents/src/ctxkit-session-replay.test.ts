import type { AssistantMessage, ChatMessage } from '@ctxkit/core';
import { contentText } from '@ctxkit/core/strategy-kit';
import { loadConversations } from '@ctxkit/core/testing';
import { Agent, run, setTracingDisabled, tool, type AgentInputItem, type AgentOutputItem, type FunctionTool } from '@openai/agents';
import { createCtxkitSession, toAgentInputItems } from './index';
import { ScriptedAgentsModel } from './testing/scripted-agents-model';

setTracingDisabled(true);

const CEILING = 4000;
const RECORDS = 15;

interface RecordedTurn {
  user: string;
  replies: AssistantMessage[];
}

function recordedTurns(history: readonly ChatMessage[]): RecordedTurn[] {
  const turns: RecordedTurn[] = [];
  for (const message of history) {
    if (message.role === 'user') turns.push({ user: contentText(message.content), replies: [] });
    else if (message.role === 'assistant') turns.at(-1)?.replies.push(structuredClone(message));
  }
  return turns;
}

/** Each tool answers with its recorded outputs, in call order. */
function recordedTools(record: ReturnType<typeof loadConversations>[number]): FunctionTool[] {
  const outputs = new Map<string, string[]>();
  const names = new Map<string, string>();
  const called = new Set<string>();
  for (const message of record.history) {
    if (message.role === 'assistant') {
      for (const call of message.tool_calls ?? []) {
        names.set(call.id, call.function.name);
        called.add(call.function.name);
      }
    }
    if (message.role === 'tool') {
      const name = names.get(message.tool_call_id) ?? '';
      outputs.set(name, [...(outputs.get(name) ?? []), contentText(message.content)]);
    }
  }
  // The records carry no tool definitions: one tool per called name, taking any arguments.
  return [...called].map((name) =>
    tool({
      name,
      description: `The airline's ${name.replace(/_/g, ' ')}.`,
      parameters: { type: 'object', properties: {}, additionalProperties: true } as never,
      strict: false,
      execute: async () => outputs.get(name)?.shift() ?? 'no recorded output',
    }) as unknown as FunctionTool,
  );
}

/** A stable key of an item: its type, role, call id and content. */
function contentKey(item: AgentInputItem): string {
  const record = item as Record<string, unknown>;
  return JSON.stringify([record.type ?? 'message', record.role ?? null, record.callId ?? null, record.name ?? null, record.arguments ?? null, record.content ?? null, record.output ?? null]);
}

/** The unpaired calls and results of a request: a call whose result does not follow it before the next user message, a result without its call. */
function unpaired(input: readonly AgentInputItem[]): string[] {
  const problems: string[] = [];
  const open = new Set<string>();
  const seen = new Set<string>();
  const close = () => {
    for (const id of open) problems.push(`call ${id} has no result`);
    open.clear();
  };
  for (const item of input) {
    const record = item as { type?: string; role?: string; callId?: string };
    if (record.type === 'function_call') {
      open.add(record.callId!);
      seen.add(record.callId!);
    } else if (record.type === 'function_call_result') {
      if (!seen.has(record.callId!)) problems.push(`result ${record.callId} has no call before it`);
      open.delete(record.callId!);
    } else if (record.role === 'user') close();
  }
  close();
  return problems;
}

describe('CtxkitSession replaying tau-bench airline conversations through run()', () => {
  test(`with the tool output cache at ${CEILING} tokens: the store holds each run's items once, and no request carries an unpaired call`, async () => {
    const records = loadConversations('tau-bench-airline').slice(20, 20 + RECORDS);
    expect(records.map((record) => record.id)).toContain('tau-bench/airline/gpt-4o/task-33/trial-0');
    const failures: string[] = [];
    for (const record of records) {
      const session = await createCtxkitSession({ pluginId: 'std-tool-output-cache-strategy', config: { maxContextTokens: CEILING, reserveOutputTokens: 0 }, sessionId: 'replay', instructions: record.systemPrompt, waitForIdle: true });
      try {
        const model = new ScriptedAgentsModel();
        const agent = new Agent({ name: 'airline', instructions: record.systemPrompt, model, tools: [...recordedTools(record), ...session.contributedTools()] });
        const expected: AgentInputItem[] = [];
        let calls = 0;
        for (const turn of recordedTurns(record.history)) {
          // The recordings reuse call ids across turns, which the Agents SDK would merge: each call gets a fresh one.
          model.script(turn.replies.map((reply) => toAgentInputItems([{ ...reply, ...(reply.tool_calls ? { tool_calls: reply.tool_calls.map((call) => ({ ...call, id: `${call.id}-${++calls}` })) } : {}) }]) as AgentOutputItem[]));
          const result = await run(agent, turn.user, { session, callModelInputFilter: session.callModelInputFilter, maxTurns: 100 });
          expected.push({ role: 'user', content: turn.user }, ...(result.newItems.map((item) => item.rawItem) as AgentInputItem[]));
        }
        const stored = await session.getStoredItems();
        if (JSON.stringify(stored.map(contentKey)) !== JSON.stringify(expected.map(contentKey))) failures.push(`${record.id}: stored ${stored.length} items, the runs made ${expected.length}`);
        model.requests.forEach((request, index) => {
          for (const problem of unpaired(request.input as AgentInputItem[])) failures.push(`${record.id} request ${index + 1}: ${problem}`);
        });
      } finally {
        await session.dispose();
      }
    }
    expect(failures).toEqual([]);
  }, 30000);
});
