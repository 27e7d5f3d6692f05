import { type ChatMessage, type ContentPart, HistoryValidationError, type ToolCall } from '@ctxkit/core';

type Fields = Record<string, unknown>;
type LangChainType = 'system' | 'human' | 'ai' | 'tool';

/** LangChain class names, `type` values and chat roles → the four types ctxkit has an equivalent for. */
const TYPES: Record<string, LangChainType> = {
  SystemMessage: 'system',
  HumanMessage: 'human',
  AIMessage: 'ai',
  ToolMessage: 'tool',
  system: 'system',
  human: 'human',
  user: 'human',
  ai: 'ai',
  assistant: 'ai',
  tool: 'tool',
};

function isObject(value: unknown): value is Fields {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The type and fields of a serialized message: the `lc` constructor form, `{type, data}`, or a flat dump. */
function typeAndFields(message: unknown, index: number): { type: LangChainType; fields: Fields } {
  if (!isObject(message)) throw new HistoryValidationError(index, 'not a message object');
  let name: unknown = message.role ?? message.type;
  let fields: Fields = message;
  if (message.lc === 1 && Array.isArray(message.id) && isObject(message.kwargs)) {
    name = String(message.id[message.id.length - 1]);
    fields = message.kwargs;
  } else if (isObject(message.data)) {
    fields = message.data;
  }
  const type = typeof name === 'string' ? TYPES[name.replace(/Chunk$/, '')] : undefined;
  if (!type)
    throw new HistoryValidationError(
      index,
      `a ${JSON.stringify(name)} message has no ctxkit equivalent; use system, human, ai and tool messages`,
    );
  return { type, fields };
}

/** Text of string content or of the text blocks of block content. */
function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .filter((block): block is Fields => isObject(block) && block.type === 'text')
    .map((block) => String(block.text))
    .join('');
}

function userContent(content: unknown): string | ContentPart[] {
  if (!Array.isArray(content) || !content.some((block) => isObject(block) && block.type === 'image_url'))
    return textOf(content);
  return content.filter(isObject).map((block): ContentPart => {
    if (block.type !== 'image_url') return { type: 'text', text: String(block.text ?? '') };
    const image = block.image_url;
    return { type: 'image_url', image_url: { url: String(isObject(image) ? image.url : image) } };
  });
}

/** `tool_calls` (`{name, args, id}`), else the OpenAI-shaped calls in `additional_kwargs`. */
function toolCalls(fields: Fields, index: number): ToolCall[] {
  const calls = Array.isArray(fields.tool_calls) ? fields.tool_calls : [];
  if (calls.length === 0) {
    const raw =
      isObject(fields.additional_kwargs) && Array.isArray(fields.additional_kwargs.tool_calls)
        ? fields.additional_kwargs.tool_calls
        : [];
    return raw.filter(isObject).map((call) => {
      const fn = isObject(call.function) ? call.function : {};
      if (typeof call.id !== 'string' || typeof fn.name !== 'string')
        throw new HistoryValidationError(index, 'a tool call needs a string id and function name');
      return {
        id: call.id,
        type: 'function',
        function: {
          name: fn.name,
          arguments: typeof fn.arguments === 'string' ? fn.arguments : JSON.stringify(fn.arguments ?? {}),
        },
      };
    });
  }
  return calls.map((call: unknown) => {
    const { id, name, args } = (call ?? {}) as Fields;
    if (typeof id !== 'string' || typeof name !== 'string')
      throw new HistoryValidationError(index, 'a tool call needs a string id and name');
    return { id, type: 'function', function: { name, arguments: JSON.stringify(args ?? {}) } };
  });
}

/**
 * Serialized LangChain messages (`{"lc": 1, "type": "constructor", ...}`, `{"type": "human", "data":
 * {...}}`, or flat `{"role"|"type", "content", ...}` dumps) → ctxkit messages: system, human → user,
 * ai → assistant (`tool_calls` with `args` as JSON `arguments`), tool (`tool_call_id`).
 * @throws HistoryValidationError (`CTXKIT_HISTORY_INVALID`) naming the message that is not one
 */
export function fromLangChainMessages(messages: readonly unknown[]): ChatMessage[] {
  return messages.map((message, index): ChatMessage => {
    const { type, fields } = typeAndFields(message, index);
    switch (type) {
      case 'system':
        return { role: 'system', content: textOf(fields.content) };
      case 'human':
        return { role: 'user', content: userContent(fields.content) };
      case 'tool':
        if (typeof fields.tool_call_id !== 'string')
          throw new HistoryValidationError(index, 'a tool message needs a string tool_call_id');
        return { role: 'tool', tool_call_id: fields.tool_call_id, content: textOf(fields.content) };
      case 'ai': {
        const calls = toolCalls(fields, index);
        const text = textOf(fields.content);
        return calls.length > 0
          ? { role: 'assistant', content: text === '' ? null : text, tool_calls: calls }
          : { role: 'assistant', content: text };
      }
    }
  });
}
