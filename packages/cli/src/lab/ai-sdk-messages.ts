import {
  type AssistantMessage,
  type ChatMessage,
  type ContentPart,
  HistoryValidationError,
  type ToolCall,
} from '@ctxkit/core';

type Part = Record<string, unknown>;

function partsOf(content: unknown, index: number, role: string): Part[] {
  if (!Array.isArray(content))
    throw new HistoryValidationError(index, `${role} content must be a string or an array of parts`);
  return content.filter((part): part is Part => typeof part === 'object' && part !== null);
}

function jsonText(value: unknown): string {
  return typeof value === 'string' ? value : (JSON.stringify(value) ?? '');
}

/** A user part as a ctxkit part: text, an image given by URL, or a marker for what has no slot. */
function userPart(part: Part): ContentPart {
  if (part.type === 'text') return { type: 'text', text: String(part.text ?? '') };
  const image = part.type === 'image' ? part.image : part.data;
  if (typeof image === 'string' && /^(https?:|data:)/.test(image))
    return { type: 'image_url', image_url: { url: image } };
  return {
    type: 'text',
    text: `[${typeof part.filename === 'string' ? `file: ${part.filename}` : String(part.mediaType ?? part.type)}]`,
  };
}

/** A tool result's text: `output` (`text`, `json`, `error-*`, `content` parts) or an older `result`. */
function resultText(part: Part): string {
  const output = part.output as { type?: unknown; value?: unknown } | undefined;
  if (output === undefined) return jsonText(part.result);
  if (output.type === 'content' && Array.isArray(output.value)) {
    return (output.value as Part[])
      .map((item) => (item.type === 'text' ? String(item.text) : `[${String(item.mediaType ?? item.type)}]`))
      .join('\n');
  }
  return output.type === 'text' || output.type === 'error-text' ? String(output.value) : jsonText(output.value);
}

function assistantMessage(content: unknown, index: number): AssistantMessage {
  if (typeof content === 'string') return { role: 'assistant', content };
  let text: string | null = null;
  const calls: ToolCall[] = [];
  for (const part of partsOf(content, index, 'assistant')) {
    if (part.type === 'text') text = (text ?? '') + String(part.text);
    if (part.type !== 'tool-call' || part.providerExecuted === true) continue;
    if (typeof part.toolCallId !== 'string' || typeof part.toolName !== 'string')
      throw new HistoryValidationError(index, 'a tool-call part needs a string toolCallId and toolName');
    calls.push({
      id: part.toolCallId,
      type: 'function',
      function: { name: part.toolName, arguments: jsonText(part.input ?? part.args ?? {}) },
    });
  }
  return calls.length > 0
    ? { role: 'assistant', content: text, tool_calls: calls }
    : { role: 'assistant', content: text };
}

function toolMessages(content: unknown, index: number): ChatMessage[] {
  return partsOf(content, index, 'tool')
    .filter((part) => part.type === 'tool-result')
    .map((part) => {
      if (typeof part.toolCallId !== 'string')
        throw new HistoryValidationError(index, 'a tool-result part needs a string toolCallId');
      return { role: 'tool', tool_call_id: part.toolCallId, content: resultText(part) };
    });
}

/**
 * AI SDK `ModelMessage`s → ctxkit messages: text as content, images by URL as `image_url` parts,
 * `tool-call` parts as `tool_calls` (input as JSON), each `tool-result` part as a tool message;
 * reasoning and provider-executed parts are left out.
 * @throws HistoryValidationError (`CTXKIT_HISTORY_INVALID`) naming the message that is not one
 */
export function fromAiSdkMessages(messages: readonly unknown[]): ChatMessage[] {
  return messages.flatMap((message, index): ChatMessage[] => {
    const { role, content } = (message ?? {}) as { role?: unknown; content?: unknown };
    switch (role) {
      case 'system':
        if (typeof content !== 'string')
          throw new HistoryValidationError(index, 'a system message needs string content');
        return [{ role: 'system', content }];
      case 'user':
        return [
          {
            role: 'user',
            content: typeof content === 'string' ? content : partsOf(content, index, 'user').map(userPart),
          },
        ];
      case 'assistant':
        return [assistantMessage(content, index)];
      case 'tool':
        return toolMessages(content, index);
      default:
        throw new HistoryValidationError(
          index,
          `unknown role ${JSON.stringify(role)}; expected system, user, assistant or tool`,
        );
    }
  });
}
