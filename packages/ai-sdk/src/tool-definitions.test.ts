/** @jest-environment <rootDir>/src/testing/native-require.test.env.ts */
jest.mock('ai', () => nativeRequire('ai'));
jest.mock('ai/test', () => nativeRequire('ai/test'));
jest.mock('zod', () => nativeRequire('zod'));

import { createTokenCounter, type ToolDefinition } from '@ctxkit/core';
import { type FlexibleSchema, generateText, jsonSchema, tool, type ToolSet } from 'ai';
import { MockLanguageModelV4 } from 'ai/test';
import { z } from 'zod';

import type { LanguageModelFunctionTool } from './ai-sdk-types';
import { asInputSchema } from './contributed-ai-tools';
import { generated } from './testing/scripted-model';
import { functionToolDefinition, languageModelTool, toolSetDefinitions } from './tool-definitions';

/** The function tools the AI SDK sends a model for a tool set. */
async function sentTools(tools: ToolSet): Promise<LanguageModelFunctionTool[]> {
  const model = new MockLanguageModelV4({ doGenerate: async () => generated({ text: 'ok' }) });
  await generateText({ model, prompt: 'Hi', tools });
  return (model.doGenerateCalls[0]!.tools ?? []).filter(
    (sent): sent is LanguageModelFunctionTool => sent.type === 'function',
  );
}

const execute = async () => 'done';

/** A Standard Schema (not zod) with a JSON Schema converter. */
function standardSchema(schema: Record<string, unknown>) {
  return {
    '~standard': {
      version: 1 as const,
      vendor: 'custom',
      validate: (value: unknown) => ({ value }),
      jsonSchema: { input: () => structuredClone(schema), output: () => structuredClone(schema) },
    },
  } as unknown as FlexibleSchema<Record<string, unknown>>;
}

describe('toolSetDefinitions', () => {
  it('gives the definitions the AI SDK sends, for JSON Schema, zod 4, lazy and standard schemas', async () => {
    const tools: ToolSet = {
      book: tool({
        description: 'Book a flight.',
        inputSchema: z.object({
          flight: z.string().describe('Flight number'),
          passengers: z.array(z.object({ name: z.string(), age: z.number().int().optional() })),
          cabin: z.enum(['economy', 'business']),
        }),
        execute,
      }),
      lookup: tool({
        description: 'Look up.',
        inputSchema: jsonSchema<{ id: string }>({
          type: 'object',
          properties: { id: { type: 'string' } },
          required: ['id'],
        }),
        strict: true,
        execute,
      }),
      lazy: tool({ inputSchema: () => jsonSchema({ type: 'object', properties: { q: { type: 'string' } } }), execute }),
      standard: tool({
        description: 'A Standard Schema.',
        inputSchema: standardSchema({ type: 'object', properties: { ref_id: { type: 'string' } } }),
        execute,
      }),
      contributed: tool({
        description: "A strategy's tool.",
        inputSchema: asInputSchema({ type: 'object', properties: { ref_id: { type: 'string' } } }),
        execute,
      }),
    };
    const definitions = await toolSetDefinitions(tools);
    expect(definitions).toEqual((await sentTools(tools)).map(functionToolDefinition));
    expect(definitions.map((definition) => definition.function.name)).toEqual([
      'book',
      'lookup',
      'lazy',
      'standard',
      'contributed',
    ]);
  });

  it("sends a strategy's tool schema exactly as the strategy defines it (as it counted it)", async () => {
    const parameters = {
      type: 'object',
      properties: { ref_id: { type: 'string' }, offset: { type: 'integer' } },
      required: ['ref_id'],
    };
    const [sent] = await sentTools({ tool_output_cache: tool({ inputSchema: asInputSchema(parameters), execute }) });
    expect(sent!.inputSchema).toEqual(parameters);
  });

  it('leaves provider tools out (the provider defines them)', async () => {
    const definitions = await toolSetDefinitions({
      web: tool({
        type: 'provider',
        id: 'openai.web_search',
        args: {},
        isProviderExecuted: true,
        inputSchema: jsonSchema({ type: 'object' }),
      }),
      lookup: tool({ inputSchema: jsonSchema({ type: 'object', properties: {} }), execute }),
    });
    expect(definitions.map((definition) => definition.function.name)).toEqual(['lookup']);
  });
});

describe('languageModelTool', () => {
  it('is the inverse of functionToolDefinition, and counts the same', async () => {
    const definition: ToolDefinition = {
      type: 'function',
      function: {
        name: 'tool_output_cache',
        description: 'Read a trimmed output.',
        parameters: { type: 'object', properties: { ref_id: { type: 'string' } }, required: ['ref_id'] },
        strict: false,
      },
    };
    expect(functionToolDefinition(languageModelTool(definition))).toEqual(definition);
    const counter = createTokenCounter({ model: 'gpt-4o' });
    expect(counter.countTools([functionToolDefinition(languageModelTool(definition))])).toBe(
      counter.countTools([definition]),
    );
  });
});
