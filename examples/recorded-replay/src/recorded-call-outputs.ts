import { type ChatMessage, type ToolCall } from '@ctxkit/core';
import { contentText } from '@ctxkit/core/strategy-kit';

/** What a replayed tool answers to a call the recording has no output for. */
export const UNRECORDED_OUTPUT = 'No recorded output for this call.';

/**
 * The recorded output of every tool call, grouped by `keyOf(call)` (its id, its tool name), in call
 * order. Results are paired to their calls by position: the recorded data reuses call ids.
 */
export function recordedOutputsBy(
  history: readonly ChatMessage[],
  keyOf: (call: ToolCall) => string,
): Map<string, string[]> {
  const outputs = new Map<string, string[]>();
  history.forEach((message, index) => {
    if (message.role !== 'assistant' || !message.tool_calls) return;
    message.tool_calls.forEach((call, position) => {
      const result = history[index + 1 + position];
      if (result?.role !== 'tool') return;
      const key = keyOf(call);
      outputs.set(key, [...(outputs.get(key) ?? []), contentText(result.content)]);
    });
  });
  return outputs;
}

/** The recorded output of every tool call, by call id, in call order. */
export function recordedOutputsByCall(history: readonly ChatMessage[]): Map<string, string[]> {
  return recordedOutputsBy(history, (call) => call.id);
}

/** How the replayed tools were used. */
export interface ToolReplayLog {
  /** Calls answered with their recorded output. */
  recorded: number;
  /** Calls the recording had no output for (answered {@link UNRECORDED_OUTPUT}). */
  unrecorded: string[];
}

/**
 * Answers replayed tool calls: each call id gets the output recorded for it, in call order, and the
 * log counts what was answered from the recording and what was not.
 */
export function recordedCallAnswerer(
  history: readonly ChatMessage[],
  log: ToolReplayLog,
): (toolName: string, callId: string) => string {
  const outputs = recordedOutputsByCall(history);
  return (toolName, callId) => {
    const output = outputs.get(callId)?.shift();
    if (output === undefined) log.unrecorded.push(`${toolName} ${callId}`);
    else log.recorded++;
    return output ?? UNRECORDED_OUTPUT;
  };
}
