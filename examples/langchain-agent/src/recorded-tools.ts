import { contentText, type ChatMessage, type ToolDefinition } from '@ctxkit/core';
import { tool, type StructuredToolInterface } from '@langchain/core/tools';

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
 * LangChain tools with the recorded definitions (JSON Schema parameters), each call answered with
 * the output recorded for its call id, as the original agent saw it.
 */
export function recordedTools(definitions: readonly ToolDefinition[], history: readonly ChatMessage[], log: ToolReplayLog): StructuredToolInterface[] {
  const outputs = recordedOutputsByCall(history);
  return definitions.map((definition) =>
    tool(
      (_input: unknown, config: unknown) => {
        const callId = (config as { toolCall?: { id?: string } }).toolCall?.id ?? '';
        const output = outputs.get(callId)?.shift();
        if (output === undefined) log.unrecorded.push(`${definition.function.name} ${callId}`);
        else log.recorded++;
        return output ?? UNRECORDED_OUTPUT;
      },
      {
        name: definition.function.name,
        description: definition.function.description ?? definition.function.name,
        schema: (definition.function.parameters ?? { type: 'object', properties: {} }) as { type: 'object' },
      },
    ) as unknown as StructuredToolInterface,
  );
}
