import type { ChatMessage, ToolDefinition } from '@ctxkit/core';
import { recordedCallAnswerer, type ToolReplayLog } from '@ctxkit/example-recorded-replay';
import { type StructuredToolInterface, tool } from '@langchain/core/tools';

/**
 * LangChain tools with the recorded definitions (JSON Schema parameters), each call answered with
 * the output recorded for its call id, as the original agent saw it.
 */
export function recordedTools(
  definitions: readonly ToolDefinition[],
  history: readonly ChatMessage[],
  log: ToolReplayLog,
): StructuredToolInterface[] {
  const answer = recordedCallAnswerer(history, log);
  return definitions.map(
    (definition) =>
      tool(
        (_input: unknown, config: unknown) => {
          const callId = (config as { toolCall?: { id?: string } }).toolCall?.id ?? '';
          return answer(definition.function.name, callId);
        },
        {
          name: definition.function.name,
          description: definition.function.description ?? definition.function.name,
          schema: (definition.function.parameters ?? { type: 'object', properties: {} }) as { type: 'object' },
        },
      ) as unknown as StructuredToolInterface,
  );
}

export type { ToolReplayLog };
