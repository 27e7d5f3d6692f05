import { type AssistantMessage, type ChatMessage, type LLMCompletionRequest, type ToolDefinition } from '@ctxkit/core';
import { contentText } from '@ctxkit/core/strategy-kit';
import { ScriptedLLMClient } from '@ctxkit/core/testing';
import type { AgentTool } from '@ctxkit/kernel';

import { recordedOutputsBy } from './recorded-call-outputs';

/** One recorded turn: what the customer said and what the agent answered (tool calls included). */
export interface RecordedTurn {
  /** History index of the user message. */
  index: number;
  userText: string;
  /** The recorded assistant messages of the turn, in order (each model call's answer). */
  replies: AssistantMessage[];
}

/** Splits a recorded history into turns, each starting at a user message. */
export function recordedTurns(history: readonly ChatMessage[]): RecordedTurn[] {
  const turns: RecordedTurn[] = [];
  history.forEach((message, index) => {
    if (message.role === 'user') turns.push({ index, userText: contentText(message.content), replies: [] });
    else if (message.role === 'assistant') turns[turns.length - 1]?.replies.push(structuredClone(message));
  });
  return turns;
}

/**
 * The recorded output of every tool call, by tool name, in call order. Results are paired to their
 * calls by position (the tau-bench data reuses call ids).
 */
export function recordedOutputs(history: readonly ChatMessage[]): Map<string, string[]> {
  return recordedOutputsBy(history, (call) => call.function.name);
}

/**
 * Executors for the given tool definitions that answer with the recorded outputs: each call of a
 * tool gets that tool's next recorded output. With a scripted model that replays the recording,
 * every call gets exactly what the original agent saw; with a real model, calls beyond the
 * recording are told so.
 */
export function createRecordedTools(
  definitions: readonly ToolDefinition[],
  history: readonly ChatMessage[],
): AgentTool[] {
  const outputs = recordedOutputs(history);
  return definitions.map((definition) => ({
    definition: structuredClone(definition),
    execute: () => {
      const next = outputs.get(definition.function.name)?.shift();
      return next ?? `No recorded output left for ${definition.function.name}; answer from what you already know.`;
    },
  }));
}

/**
 * A scripted model that replays the recorded agent: `startTurn(turn)` loads a turn's recorded
 * answers and each model call returns the next one. A call past the recording gets a short closing
 * text, so a run always ends.
 */
export class ReplayModel {
  private pending: AssistantMessage[] = [];
  /** The offline client the agent calls. */
  readonly client: ScriptedLLMClient;

  constructor(name: string) {
    this.client = new ScriptedLLMClient([(request: LLMCompletionRequest) => this.answer(request)], {
      repeatLast: true,
      name,
    });
  }

  /** Loads the recorded answers of the next turn. */
  startTurn(turn: RecordedTurn): void {
    this.pending = turn.replies.map((reply) => structuredClone(reply));
  }

  private answer(_request: LLMCompletionRequest): Partial<AssistantMessage> {
    const next = this.pending.shift();
    if (!next) return { content: 'Is there anything else I can help you with?' };
    return next.tool_calls
      ? { content: next.content ?? null, tool_calls: next.tool_calls }
      : { content: next.content ?? '' };
  }
}
