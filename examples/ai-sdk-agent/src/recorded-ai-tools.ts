import type { ChatMessage, ToolDefinition } from '@ctxkit/core';
import { recordedOutputs } from '@ctxkit/example-recorded-replay';
import { jsonSchema, tool, type ToolSet } from 'ai';

/**
 * AI SDK tools for recorded tool definitions whose executors answer with the recorded outputs:
 * each call of a tool gets that tool's next recorded output (a note once the recording runs out).
 */
export function recordedAiTools(definitions: readonly ToolDefinition[], history: readonly ChatMessage[]): ToolSet {
  const outputs = recordedOutputs(history);
  const tools: ToolSet = {};
  for (const definition of definitions) {
    const { name, description, parameters } = definition.function;
    tools[name] = tool({
      ...(description !== undefined ? { description } : {}),
      inputSchema: jsonSchema(parameters ?? { type: 'object', properties: {} }),
      execute: async () =>
        outputs.get(name)?.shift() ?? `No recorded output left for ${name}; answer from what you already know.`,
    });
  }
  return tools;
}
