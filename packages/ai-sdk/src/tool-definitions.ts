import type { JsonSchema, ToolDefinition } from '@ctxkit/core';
import type { FlexibleSchema, ToolSet } from 'ai';

import { AI_SDK_SCHEMA_MARKER } from './ai-sdk-schema-marker';
import type { LanguageModelFunctionTool } from './ai-sdk-types';

/** The input schema the AI SDK sends for a tool without one. */
const EMPTY_OBJECT_SCHEMA: JsonSchema = { type: 'object', properties: {}, additionalProperties: false };

/** The ctxkit definition of a function tool as a language model receives it. */
export function functionToolDefinition(tool: LanguageModelFunctionTool): ToolDefinition {
  const definition: ToolDefinition = { type: 'function', function: { name: tool.name } };
  if (tool.description !== undefined) definition.function.description = tool.description;
  definition.function.parameters = tool.inputSchema as JsonSchema;
  if (tool.strict !== undefined) definition.function.strict = tool.strict;
  return definition;
}

/** The function tool a language model receives for a ctxkit definition (a strategy's own tools). */
export function languageModelTool(definition: Readonly<ToolDefinition>): LanguageModelFunctionTool {
  const { name, description, parameters, strict } = definition.function;
  return {
    type: 'function',
    name,
    inputSchema: (parameters ?? { type: 'object', properties: {} }) as LanguageModelFunctionTool['inputSchema'],
    ...(description !== undefined ? { description } : {}),
    ...(strict !== undefined ? { strict } : {}),
  };
}

/** Object schemas closed with `additionalProperties: false`, as the AI SDK sends converted schemas. */
function closedObjects(schema: unknown): unknown {
  if (typeof schema !== 'object' || schema === null || Array.isArray(schema)) return schema;
  const copy: Record<string, unknown> = { ...(schema as Record<string, unknown>) };
  const type = copy.type;
  if (type === 'object' || (Array.isArray(type) && type.includes('object'))) {
    const extra = copy.additionalProperties;
    copy.additionalProperties =
      extra !== undefined && extra !== null && typeof extra !== 'boolean' ? closedObjects(extra) : false;
    if (typeof copy.properties === 'object' && copy.properties !== null) {
      copy.properties = Object.fromEntries(
        Object.entries(copy.properties as Record<string, unknown>).map(([key, value]) => [key, closedObjects(value)]),
      );
    }
  }
  if (copy.items !== undefined)
    copy.items = Array.isArray(copy.items) ? copy.items.map(closedObjects) : closedObjects(copy.items);
  for (const key of ['anyOf', 'allOf', 'oneOf'] as const)
    if (Array.isArray(copy[key])) copy[key] = (copy[key] as unknown[]).map(closedObjects);
  if (typeof copy.definitions === 'object' && copy.definitions !== null) {
    copy.definitions = Object.fromEntries(
      Object.entries(copy.definitions as Record<string, unknown>).map(([key, value]) => [key, closedObjects(value)]),
    );
  }
  return copy;
}

interface StandardJsonSchemaLike {
  '~standard': { jsonSchema?: { input(options: { target: string }): unknown } };
}

/** True for a schema marked as the AI SDK marks `jsonSchema()` schemas. */
function isMarkedSchema(schema: object): schema is { jsonSchema: unknown } {
  return (
    (schema as Record<symbol, unknown>)[AI_SDK_SCHEMA_MARKER] === true && 'jsonSchema' in schema && 'validate' in schema
  );
}

/**
 * The JSON Schema of an AI SDK tool's input schema, as the AI SDK sends it (in the order the AI SDK
 * reads schemas): a `jsonSchema()` schema as it is, a Standard Schema (zod 4, valibot, arktype ...)
 * through its JSON Schema converter with objects closed, a lazy schema through its factory.
 * `undefined` when the schema has no JSON form ctxkit can read (zod 3).
 */
export async function inputJsonSchema(schema: FlexibleSchema<unknown> | undefined): Promise<JsonSchema | undefined> {
  if (schema === undefined || schema === null) return EMPTY_OBJECT_SCHEMA;
  if (typeof schema === 'object' && isMarkedSchema(schema)) return (await schema.jsonSchema) as JsonSchema;
  if (typeof schema === 'object' && '~standard' in schema) {
    const converter = (schema as unknown as StandardJsonSchemaLike)['~standard'].jsonSchema;
    return converter ? (closedObjects(converter.input({ target: 'draft-07' })) as JsonSchema) : undefined;
  }
  if (typeof schema === 'function') return inputJsonSchema((schema as () => FlexibleSchema<unknown>)());
  return undefined;
}

/**
 * The ctxkit definitions of an AI SDK tool set's function tools, in the order the AI SDK sends
 * them (provider tools are not counted: their definitions are the provider's).
 */
export async function toolSetDefinitions(tools: ToolSet): Promise<ToolDefinition[]> {
  const definitions: ToolDefinition[] = [];
  for (const name of Object.keys(tools)) {
    const tool = tools[name]!;
    const type = (tool as { type?: string }).type;
    if (type !== undefined && type !== 'function' && type !== 'dynamic') continue;
    const definition: ToolDefinition = { type: 'function', function: { name } };
    if (typeof tool.description === 'string') definition.function.description = tool.description;
    const parameters = await inputJsonSchema(tool.inputSchema as FlexibleSchema<unknown>);
    if (parameters !== undefined) definition.function.parameters = parameters;
    const strict = (tool as { strict?: boolean }).strict;
    if (strict !== undefined) definition.function.strict = strict;
    definitions.push(definition);
  }
  return definitions;
}
