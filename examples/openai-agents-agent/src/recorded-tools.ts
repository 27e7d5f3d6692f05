import { contentText, type ChatMessage, type ToolDefinition } from '@ctxkit/core';
import { tool, type FunctionTool } from '@openai/agents';

/** What a replayed tool answers to a call the recording has no output for. */
export const UNRECORDED_OUTPUT = 'No recorded output for this call.';

/**
 * The recorded output of every tool call, by call id, in call order (results are paired to their
 * calls by position: the recorded data reuses call ids across turns).
 */
export function recordedOutputsByCall(history: readonly ChatMessage[]): Map<string, string[]> {
  const outputs = new Map<string, string[]>();
  history.forEach((message, index) => {
    if (message.role !== 'assistant' || !message.tool_calls) return;
    message.tool_calls.forEach((call, position) => {
      const result = history[index + 1 + position];
      if (result?.role !== 'tool') return;
      outputs.set(call.id, [...(outputs.get(call.id) ?? []), contentText(result.content)]);
    });
  });
  return outputs;
}

/** How the replayed tools were used. */
export interface ToolReplayLog {
  /** Calls answered with their recorded output. */
  recorded: number;
  /** Calls the recording had no output for (answered {@link UNRECORDED_OUTPUT}). */
  unrecorded: string[];
}

/**
 * Agents SDK function tools with the recorded definitions (JSON Schema parameters, not strict), each
 * call answered with the output recorded for its call id (`recordedCallId` maps the id the replaying
 * model gave out back to the recorded one).
 */
export function recordedTools(definitions: readonly ToolDefinition[], history: readonly ChatMessage[], recordedCallId: (callId: string) => string, log: ToolReplayLog): FunctionTool[] {
  const outputs = recordedOutputsByCall(history);
  return definitions.map((definition) =>
    tool({
      name: definition.function.name,
      description: definition.function.description ?? definition.function.name,
      parameters: (definition.function.parameters ?? { type: 'object', properties: {} }) as never,
      strict: false,
      execute: async (_input: unknown, _context: unknown, details?: { toolCall?: { callId: string } }) => {
        const callId = recordedCallId(details?.toolCall?.callId ?? '');
        const output = outputs.get(callId)?.shift();
        if (output === undefined) log.unrecorded.push(`${definition.function.name} ${callId}`);
        else log.recorded++;
        return output ?? UNRECORDED_OUTPUT;
      },
    }) as unknown as FunctionTool,
  );
}
