import * as fs from 'node:fs';
import * as path from 'node:path';

import { type AssistantMessage, type ChatMessage, type LLMCompletionRequest } from '@ctxkit/core';
import { contentText } from '@ctxkit/core/strategy-kit';
import { ScriptedLLMClient } from '@ctxkit/core/testing';
import type { AgentTool } from '@ctxkit/kernel';

/** The folder of the integration cases. */
export const CASES_DIR = path.join(__dirname, '..', 'cases');

/**
 * One kernel case (`cases/<name>/`): the agent manifest, the recorded conversation it replays
 * (`history.jsonl`, one message a line) and what the test expects (`expected.json`).
 */
export interface KernelCase {
  name: string;
  manifestPath: string;
  history: ChatMessage[];
  expected: Record<string, unknown>;
}

/** Reads `cases/<name>/{agent.plugin.json,history.jsonl,expected.json}`. */
export function loadKernelCase(name: string): KernelCase {
  const dir = path.join(CASES_DIR, name);
  const history = fs
    .readFileSync(path.join(dir, 'history.jsonl'), 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as ChatMessage);
  const expected = JSON.parse(fs.readFileSync(path.join(dir, 'expected.json'), 'utf8')) as Record<string, unknown>;
  return { name, manifestPath: path.join(dir, 'agent.plugin.json'), history, expected };
}

/** A recorded turn: the user's message and the assistant's answers (one per model call). */
export interface CaseTurn {
  userText: string;
  replies: AssistantMessage[];
}

/** Splits a recorded history at its user messages. */
export function caseTurns(history: readonly ChatMessage[]): CaseTurn[] {
  const turns: CaseTurn[] = [];
  for (const message of history) {
    if (message.role === 'user') turns.push({ userText: contentText(message.content), replies: [] });
    else if (message.role === 'assistant') turns[turns.length - 1]?.replies.push(structuredClone(message));
  }
  return turns;
}

/** Tools named in the recording, answering each call with that tool's next recorded output (paired by position). */
export function recordedTools(history: readonly ChatMessage[]): AgentTool[] {
  const outputs = new Map<string, string[]>();
  history.forEach((message, index) => {
    if (message.role !== 'assistant') return;
    (message.tool_calls ?? []).forEach((call, position) => {
      const result = history[index + 1 + position];
      const list = outputs.get(call.function.name) ?? [];
      if (result?.role === 'tool') list.push(contentText(result.content));
      outputs.set(call.function.name, list);
    });
  });
  return [...outputs.keys()].map((name) => ({
    definition: {
      type: 'function',
      function: { name, description: `The recorded ${name} tool.`, parameters: { type: 'object', properties: {} } },
    },
    execute: () => outputs.get(name)!.shift() ?? `(${name}: no recorded output)`,
  }));
}

/**
 * The scripted model of a case: each call answers with the current turn's next recorded reply.
 * `interject(request)` may answer first (e.g. a call to a tool the strategy contributes).
 */
export class CaseModel {
  private pending: AssistantMessage[] = [];
  readonly client: ScriptedLLMClient;
  interject: ((request: LLMCompletionRequest) => Partial<AssistantMessage> | undefined) | undefined;

  constructor() {
    this.client = new ScriptedLLMClient([(request: LLMCompletionRequest) => this.answer(request)], {
      repeatLast: true,
      name: 'scripted-case-model',
    });
  }

  startTurn(turn: CaseTurn): void {
    this.pending = turn.replies.map((reply) => structuredClone(reply));
  }

  private answer(request: LLMCompletionRequest): Partial<AssistantMessage> {
    const interjected = this.interject?.(request);
    if (interjected) return interjected;
    const next = this.pending.shift();
    if (!next) return { content: 'Anything else?' };
    return next.tool_calls
      ? { content: next.content ?? null, tool_calls: next.tool_calls }
      : { content: next.content ?? '' };
  }
}
