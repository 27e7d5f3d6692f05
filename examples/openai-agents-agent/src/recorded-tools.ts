import type { ChatMessage, ToolDefinition } from '@ctxkit/core';
import { recordedCallAnswerer, type ToolReplayLog } from '@ctxkit/example-recorded-replay';
import { type FunctionTool, tool } from '@openai/agents';

/**
 * Agents SDK function tools with the recorded definitions (JSON Schema parameters, not strict), each
 * call answered with the output recorded for its call id (`recordedCallId` maps the id the replaying
 * model gave out back to the recorded one).
 */
export function recordedTools(
  definitions: readonly ToolDefinition[],
  history: readonly ChatMessage[],
  recordedCallId: (callId: string) => string,
  log: ToolReplayLog,
): FunctionTool[] {
  const answer = recordedCallAnswerer(history, log);
  return definitions.map(
    (definition) =>
      tool({
        name: definition.function.name,
        description: definition.function.description ?? definition.function.name,
        parameters: (definition.function.parameters ?? { type: 'object', properties: {} }) as never,
        strict: false,
        execute: async (_input: unknown, _context: unknown, details?: { toolCall?: { callId: string } }) => {
          const callId = recordedCallId(details?.toolCall?.callId ?? '');
          return answer(definition.function.name, callId);
        },
      }) as unknown as FunctionTool,
  );
}

export type { ToolReplayLog };
