/** Details common to LLM failures. */
export interface LLMErrorDetails {
  client: string;
  model?: string;
  status?: number;
  attempts?: number;
  url?: string;
  body?: string;
  [key: string]: unknown;
}
