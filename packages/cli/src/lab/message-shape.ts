/** The message shapes a transcript may hold, each read into ctxkit's (OpenAI chat) messages. */
export type MessageShape = 'openai-chat' | 'ai-sdk' | 'langchain' | 'anthropic' | 'openai-responses' | 'openai-agents';

/** Each shape's name and a one-line example of a tool call and its result, for error messages. */
export const MESSAGE_SHAPES: Record<MessageShape, { name: string; example: string }> = {
  'openai-chat': {
    name: 'OpenAI chat',
    example:
      '{"role": "assistant", "content": null, "tool_calls": [{"id": "c1", "type": "function", "function": {"name": ' +
      '"f", "arguments": "{}"}}]}, {"role": "tool", "tool_call_id": "c1", "content": "..."}',
  },
  'ai-sdk': {
    name: 'AI SDK',
    example:
      '{"role": "assistant", "content": [{"type": "tool-call", "toolCallId": "c1", "toolName": "f", "input": {}}]}, ' +
      '{"role": "tool", "content": [{"type": "tool-result", "toolCallId": "c1", "toolName": "f", "output": ' +
      '{"type": "text", "value": "..."}}]}',
  },
  langchain: {
    name: 'LangChain',
    example:
      '{"type": "ai", "data": {"content": "", "tool_calls": [{"name": "f", "args": {}, "id": "c1"}]}}, {"type": ' +
      '"tool", "data": {"content": "...", "tool_call_id": "c1"}}',
  },
  anthropic: {
    name: 'Anthropic Messages',
    example:
      '{"role": "assistant", "content": [{"type": "tool_use", "id": "c1", "name": "f", "input": {}}]}, {"role": ' +
      '"user", "content": [{"type": "tool_result", "tool_use_id": "c1", "content": "..."}]}',
  },
  'openai-responses': {
    name: 'OpenAI Responses',
    example:
      '{"type": "function_call", "call_id": "c1", "name": "f", "arguments": "{}"}, {"type": "function_call_output", ' +
      '"call_id": "c1", "output": "..."}',
  },
  'openai-agents': {
    name: 'OpenAI Agents SDK',
    example:
      '{"type": "function_call", "callId": "c1", "name": "f", "arguments": "{}"}, {"type": "function_call_result", ' +
      '"callId": "c1", "name": "f", "status": "completed", "output": {"type": "text", "text": "..."}}',
  },
};

/** The shapes in the order the docs and `--format` list them. */
export const MESSAGE_SHAPE_NAMES = Object.keys(MESSAGE_SHAPES) as MessageShape[];

const LANGCHAIN_TYPES = new Set(['human', 'ai', 'system', 'tool']);
const RESPONSES_ITEMS = new Set(['message', 'function_call', 'function_call_output', 'reasoning']);
const PART_SHAPES: Record<string, MessageShape> = {
  tool_use: 'anthropic',
  tool_result: 'anthropic',
  thinking: 'anthropic',
  redacted_thinking: 'anthropic',
  'tool-call': 'ai-sdk',
  'tool-result': 'ai-sdk',
  reasoning: 'ai-sdk',
  file: 'ai-sdk',
  input_text: 'openai-responses',
  output_text: 'openai-responses',
  input_image: 'openai-responses',
  refusal: 'openai-responses',
};

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** An Agents SDK function item: Responses items but for the camelCase `callId` and `function_call_result`. */
function isAgentsItem(message: unknown): boolean {
  return (
    isObject(message) &&
    (message.type === 'function_call_result' || (message.type === 'function_call' && 'callId' in message))
  );
}

/** The shape only `message` can be in, or `undefined` when it reads the same in several (plain text). */
function shapeOf(message: unknown): MessageShape | undefined {
  if (!isObject(message)) return undefined;
  if (message.lc === 1 || (typeof message.type === 'string' && LANGCHAIN_TYPES.has(message.type))) return 'langchain';
  if (message.role === 'human' || message.role === 'ai') return 'langchain';
  if (Array.isArray(message.tool_calls) && message.tool_calls.some((call) => isObject(call) && 'args' in call))
    return 'langchain';
  if (typeof message.type === 'string' && RESPONSES_ITEMS.has(message.type)) return 'openai-responses';
  if (!Array.isArray(message.content)) return undefined;
  for (const part of message.content) {
    if (!isObject(part) || typeof part.type !== 'string') continue;
    const shape = PART_SHAPES[part.type];
    if (shape) return shape;
    if (part.type === 'image') return 'source' in part ? 'anthropic' : 'ai-sdk';
  }
  return undefined;
}

/**
 * The shape of a conversation's messages: an Agents SDK function item anywhere makes it Agents SDK
 * items; otherwise the first message only one shape has (a LangChain type, a Responses item, an
 * Anthropic or AI SDK tool part ...) decides; plain text messages read
 * the same in every shape, so a conversation of those is OpenAI chat.
 */
export function detectMessageShape(messages: readonly unknown[]): MessageShape {
  // Agents SDK items read as Responses items up to their first function item.
  if (messages.some(isAgentsItem)) return 'openai-agents';
  for (const message of messages) {
    const shape = shapeOf(message);
    if (shape) return shape;
  }
  return 'openai-chat';
}
