import {
  type AssistantMessage,
  type ChatMessage,
  LLMResponseError,
  type ReasoningItem,
  type ToolCall,
  type ToolDefinition,
} from '@ctxkit/core';

/** A message as OpenAI chat completions takes it (the canonical shape minus ctxkit-only fields). */
export type OpenAIChatMessage =
  | { role: 'system'; content: ChatMessage['content']; name?: string }
  | { role: 'user'; content: ChatMessage['content']; name?: string }
  | { role: 'assistant'; content: string | null; tool_calls?: ToolCall[]; name?: string }
  | { role: 'tool'; tool_call_id: string; content: ChatMessage['content'] };

/**
 * Canonical → OpenAI chat: the canonical shape *is* the chat-completions shape, so this is an
 * identity copy that drops the fields only ctxkit knows (`reasoning` on assistant messages,
 * `output_ref` on tool messages), which strict servers reject as unknown properties. The input is
 * never mutated.
 */
export function toOpenAIChatMessages(messages: ReadonlyArray<Readonly<ChatMessage>>): OpenAIChatMessage[] {
  return messages.map((message): OpenAIChatMessage => {
    switch (message.role) {
      case 'assistant': {
        const out: OpenAIChatMessage = { role: 'assistant', content: message.content };
        if (message.tool_calls && message.tool_calls.length > 0) {
          out.tool_calls = message.tool_calls.map((call) => ({
            id: call.id,
            type: 'function',
            function: { name: call.function.name, arguments: call.function.arguments },
          }));
        }
        if (message.name !== undefined) out.name = message.name;
        return out;
      }
      case 'tool':
        return { role: 'tool', tool_call_id: message.tool_call_id, content: message.content };
      default:
        return { ...message } as OpenAIChatMessage;
    }
  });
}

/** Canonical tool definitions are already OpenAI chat tools; this returns copies. */
export function toOpenAIChatTools(tools: ReadonlyArray<Readonly<ToolDefinition>>): ToolDefinition[] {
  return tools.map((tool) => ({ type: 'function', function: { ...tool.function } }));
}

/**
 * OpenAI chat → canonical: validates the assistant message of a `choices[i].message` and returns
 * a canonical `AssistantMessage`. A `reasoning_content` field (DeepSeek, vLLM reasoning parsers) is
 * kept as a reasoning item of provider `openai-compatible`.
 * @param client the client name used in the error
 * @throws LLMResponseError (`CTXKIT_LLM_RESPONSE_INVALID`) when the value is not an assistant message
 */
export function fromOpenAIChatMessage(raw: unknown, client = 'openai-chat'): AssistantMessage {
  const bad = (problem: string): LLMResponseError => new LLMResponseError(problem, { client });
  if (raw === null || typeof raw !== 'object') throw bad('message is not an object');
  const value = raw as Record<string, unknown>;
  if (value.role !== undefined && value.role !== 'assistant') {
    throw bad(`message role is ${JSON.stringify(value.role)}, expected "assistant"`);
  }
  const content = value.content;
  if (content !== null && content !== undefined && typeof content !== 'string') {
    throw bad('message content is neither a string nor null');
  }
  const message: AssistantMessage = { role: 'assistant', content: typeof content === 'string' ? content : null };
  if (value.tool_calls !== undefined && value.tool_calls !== null) {
    if (!Array.isArray(value.tool_calls)) throw bad('tool_calls is not an array');
    const calls: ToolCall[] = value.tool_calls.map((item: unknown, index: number) => {
      const call = item as { id?: unknown; function?: { name?: unknown; arguments?: unknown } } | null;
      if (!call || typeof call.id !== 'string' || !call.function || typeof call.function.name !== 'string') {
        throw bad(`tool_calls[${index}] lacks an id or a function name`);
      }
      const args = call.function.arguments;
      return {
        id: call.id,
        type: 'function',
        function: { name: call.function.name, arguments: typeof args === 'string' ? args : JSON.stringify(args ?? {}) },
      };
    });
    if (calls.length > 0) message.tool_calls = calls;
  }
  if (typeof value.reasoning_content === 'string' && value.reasoning_content !== '') {
    const item: ReasoningItem = { provider: 'openai-compatible', data: { reasoning_content: value.reasoning_content } };
    message.reasoning = [item];
  }
  return message;
}
