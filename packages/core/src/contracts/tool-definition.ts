/** A JSON Schema document (kept loose on purpose: schemas are data, validated by ajv). */
export type JsonSchema = Record<string, unknown>;

/** An OpenAI-style function tool definition. Always sent complete. */
export interface ToolDefinition {
  type: 'function';
  function: {
    name: string;
    description?: string;
    parameters?: JsonSchema;
    strict?: boolean;
  };
}
