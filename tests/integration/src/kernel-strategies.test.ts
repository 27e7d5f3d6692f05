import 'reflect-metadata';

import { type AgentHandle, type ChatMessage, type ContextRuntime, createContextRuntime } from '@ctxkit/core';
import { contentText, findPayloadProblems } from '@ctxkit/core/strategy-kit';
import type { RecordedRequest } from '@ctxkit/core/testing';
import { type AgentRunResult, type AgentTool, createAgent } from '@ctxkit/kernel';

import { CaseModel, caseTurns, type KernelCase, loadKernelCase, recordedTools } from './kernel-case';

/**
 * Each standard strategy end to end: plugin.json → createContextRuntime → loadAgent (validation,
 * DI) → createAgent (kernel) → scripted model → tools → next turn, asserting the strategy's effect
 * on what the model received (the scripted client records every request). The scripted model is the
 * agent's one client: the strategy's own calls (summaries, extraction) go through it too, asking for
 * their model by name.
 */

interface Replay {
  handle: AgentHandle;
  model: CaseModel;
  results: AgentRunResult[];
  /** The kernel's requests of each turn, in order (those naming the agent's model). */
  requestsByTurn: RecordedRequest[][];
  /** The strategy's own requests (naming another model), in order. */
  strategyRequests: RecordedRequest[];
}

async function replay(
  runtime: ContextRuntime,
  kase: KernelCase,
  options: { tools?: AgentTool[]; model?: CaseModel } = {},
): Promise<Replay> {
  const handle = await runtime.loadAgent(kase.manifestPath);
  const model = options.model ?? new CaseModel();
  const agent = createAgent(handle, {
    llm: model.client,
    systemPrompt: handle.manifest.systemPrompt ?? '',
    tools: options.tools ?? recordedTools(kase.history),
  });
  const results: AgentRunResult[] = [];
  const requestsByTurn: RecordedRequest[][] = [];
  const agentModel = (request: RecordedRequest) => request.model === handle.manifest.model;
  for (const turn of caseTurns(kase.history)) {
    model.startTurn(turn);
    const from = model.client.requests.length;
    results.push(await agent.run(turn.userText, { waitForIdle: true }));
    requestsByTurn.push(model.client.requests.slice(from).filter(agentModel));
  }
  return {
    handle,
    model,
    results,
    requestsByTurn,
    strategyRequests: model.client.requests.filter((request) => !agentModel(request)),
  };
}

const textOf = (messages: readonly ChatMessage[]) =>
  messages.map((message) => contentText(message.content ?? null)).join('\n');
/** A strategy's memory block sent as a user message (a summary, a state): its frame's tag opens a line. */
const MEMORY_FRAME = /^<(conversation_summary|conversation_state|compaction_summary|pinned|recalled-turns)[\s>]/m;
/** The texts of the conversation's user messages (memory blocks sent as user messages aside). */
const usersOf = (messages: readonly ChatMessage[]) =>
  messages
    .filter((message) => message.role === 'user' && !MEMORY_FRAME.test(contentText(message.content)))
    .map((message) => contentText(message.content));

describe('kernel with each strategy (plugin.json → loader → DI → kernel → scripted model → tools → next turn)', () => {
  let runtime: ContextRuntime;

  beforeEach(async () => {
    runtime = await createContextRuntime();
  });

  afterEach(async () => {
    await runtime.dispose();
  });

  describe('std-sliding-window-strategy', () => {
    it('drops the oldest turns at a small budget and always sends the newest user message', async () => {
      const kase = loadKernelCase('kernel-sliding-window');
      const { handle, results, requestsByTurn } = await replay(runtime, kase);
      expect(handle.strategyId).toBe(kase.expected.strategyId);
      expect(results).toHaveLength(kase.expected.turns as number);
      const turns = caseTurns(kase.history);
      requestsByTurn.forEach((requests, index) => {
        for (const request of requests) {
          expect(request.messages[0]).toEqual({ role: 'system', content: handle.manifest.systemPrompt });
          expect(usersOf(request.messages).at(-1)).toBe(turns[index]!.userText);
          expect(findPayloadProblems(request.messages)).toEqual([]);
        }
      });
      const goneBy = requestsByTurn.findIndex(
        (requests) => !usersOf(requests[0]!.messages).includes(turns[0]!.userText),
      );
      expect(goneBy + 1).toBe(kase.expected.firstUserMessageGoneByTurn);
      const last = results.at(-1)!.payloads.at(-1)!;
      expect(last.budget.used).toBeLessThanOrEqual(last.budget.available);
      expect(last.reductions.some((reduction) => reduction.action === 'dropped' && reduction.from === 0)).toBe(true);
      // The kernel keeps the whole history; only the payload is windowed.
      expect(results.at(-1)!.messages).toHaveLength(kase.history.length);
    });
  });

  describe('std-summarization-strategy', () => {
    it('puts the summary right after the system prompt, written by the compression model', async () => {
      const kase = loadKernelCase('kernel-summarization');
      const summary = kase.expected.summary as string;
      const model = new CaseModel();
      model.interject = (request) =>
        request.model === kase.expected.summaryModel ? { content: `<summary>${summary}</summary>` } : undefined;
      const { handle, results, requestsByTurn, strategyRequests } = await replay(runtime, kase, { model });
      expect(handle.strategyId).toBe(kase.expected.strategyId);
      expect(strategyRequests.length).toBeGreaterThan(0);
      expect(strategyRequests.every((request) => request.model === kase.expected.summaryModel && !request.tools)).toBe(
        true,
      );
      expect(requestsByTurn.flat()).toHaveLength(kase.expected.turns as number);
      const last = requestsByTurn.at(-1)!.at(-1)!;
      expect(last.messages[0]).toEqual({ role: 'system', content: handle.manifest.systemPrompt });
      expect(contentText(last.messages[1]!.content ?? null)).toContain(summary);
      expect(textOf(last.messages.slice(2))).not.toContain(summary);
      expect(usersOf(last.messages).length).toBeLessThan(kase.expected.turns as number);
      expect(usersOf(last.messages)).not.toContain(caseTurns(kase.history)[0]!.userText);
      const stats = results.at(-1)!.payloads.at(-1)!;
      expect(stats.summarized).toBeGreaterThan(0);
      expect(stats.sections.memory).toBeGreaterThan(0);
    });
  });

  describe('std-entity-extraction-strategy', () => {
    it('injects the extracted state block and, in lean mode, keeps only the last turn verbatim', async () => {
      const kase = loadKernelCase('kernel-entity-extraction');
      const model = new CaseModel();
      // The extraction calls ask the agent's client for the extraction model, in JSON.
      model.interject = (request) =>
        request.responseFormat === 'json' ? { content: JSON.stringify(kase.expected.state) } : undefined;
      const { handle, results, requestsByTurn, strategyRequests } = await replay(runtime, kase, { model });
      expect(strategyRequests.length).toBeGreaterThan(0);
      expect(
        strategyRequests.every(
          (request) => request.model === kase.expected.extractionModel && request.responseFormat === 'json',
        ),
      ).toBe(true);
      expect(handle.strategyId).toBe(kase.expected.strategyId);
      expect(results).toHaveLength(kase.expected.turns as number);
      const turns = caseTurns(kase.history);
      requestsByTurn.forEach((requests, index) => {
        for (const request of requests) {
          expect(request.messages[0]!.role).toBe('system');
          // The state block, in a user message of its own (a quoted record, not instructions).
          expect(request.messages[1]!.role).toBe('user');
          expect(contentText(request.messages[1]!.content ?? null)).toMatch(/\n<conversation_state version="\d+">/);
          expect(usersOf(request.messages)).toEqual([turns[index]!.userText]);
          expect(findPayloadProblems(request.messages)).toEqual([]);
        }
      });
      const lastBlock = contentText(requestsByTurn.at(-1)!.at(-1)!.messages[1]!.content ?? null);
      const state = JSON.parse(
        /<conversation_state[^>]*>\n([\s\S]*?)\n<\/conversation_state>/.exec(lastBlock)![1]!,
      ) as Record<string, unknown>;
      expect(state).toMatchObject(kase.expected.state as Record<string, unknown>);
    });
  });

  describe('std-tool-output-cache-strategy', () => {
    it('replaces old outputs with a ref placeholder, and the model expands them back byte for byte', async () => {
      const kase = loadKernelCase('kernel-tool-output-cache');
      const expandedId = kase.expected.expandedToolCallId as string;
      const original = contentText(
        kase.history.find((message) => message.role === 'tool' && message.tool_call_id === expandedId)!.content,
      );
      const model = new CaseModel();
      let asked: string | undefined;
      model.interject = (request) => {
        if (asked) return undefined;
        const placeholder = request.messages.find(
          (message) =>
            message.role === 'tool' &&
            message.tool_call_id === expandedId &&
            contentText(message.content).startsWith(kase.expected.placeholder as string),
        );
        const ref = placeholder?.role === 'tool' ? placeholder.output_ref?.id : undefined;
        if (!ref || usersOf(request.messages).length < 2) return undefined;
        asked = ref;
        return {
          content: null,
          tool_calls: [
            {
              id: 'expand_1',
              type: 'function',
              function: { name: 'tool_output_cache', arguments: JSON.stringify({ ref_id: ref }) },
            },
          ],
        };
      };
      const { handle, results, requestsByTurn } = await replay(runtime, kase, { model });
      expect(handle.strategyId).toBe(kase.expected.strategyId);
      // Turn 1: the older outputs left the payload as placeholders naming their ref.
      const endOfTurn1 = requestsByTurn[0]!.at(-1)!;
      const placeholders = endOfTurn1.messages.filter(
        (message) =>
          message.role === 'tool' &&
          /^\[tool output trimmed; ref=to_[0-9a-f]{32}\]$/.test(contentText(message.content)),
      );
      expect(placeholders.length).toBeGreaterThan(0);
      expect(
        results[0]!.payloads
          .at(-1)!
          .reductions.some(
            (reduction) => reduction.action === 'trimmed' && reduction.recoverableFrom === 'tool-output-cache',
          ),
      ).toBe(true);
      // Turn 2: the model asked for the first output back with the contributed tool and got it whole.
      expect(asked).toMatch(/^to_[0-9a-f]{32}$/);
      expect(results[1]!.toolCalls).toEqual([expect.objectContaining({ toolName: 'tool_output_cache', ok: true })]);
      const answer = requestsByTurn[1]!
        .at(-1)!
        .messages.find((message) => message.role === 'tool' && message.tool_call_id === 'expand_1')!;
      const rows = contentText(answer.content)
        .split('\n')
        .filter((row) => /^ *\d+\t/.test(row));
      expect(rows.map((row) => row.replace(/^ *\d+\t/, '')).join('\n')).toBe(original);
      for (const request of requestsByTurn.flat()) expect(findPayloadProblems(request.messages)).toEqual([]);
    });
  });
});
