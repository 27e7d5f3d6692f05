import type { AssistantMessage, ChatMessage, ContentPart, ReasoningItem, ToolCall } from '@ctxkit/core';
import type { ModelMessage } from 'ai';

import type { AnyModelMessages, UserPart } from './ai-sdk-types';
import { ModelMessageError } from './errors/model-message-error';
import { imageUrlOf, isImageMediaType } from './file-data';
import { freezeChatMessage } from './freeze-chat-message';
import { keptOptionsItem, keptPartItem } from './kept-assistant-part';
import { type MessageOrigin, recordOrigin } from './message-origin';
import { fileMarker, toolResultText } from './tool-result-text';

type ImageDetail = 'auto' | 'low' | 'high';

function imageDetailOf(providerOptions: unknown): ImageDetail | undefined {
  const detail = (providerOptions as { openai?: { imageDetail?: unknown } } | undefined)?.openai?.imageDetail;
  return detail === 'auto' || detail === 'low' || detail === 'high' ? detail : undefined;
}

function imagePart(url: string, detail: ImageDetail | undefined): ContentPart {
  return { type: 'image_url', image_url: detail === undefined ? { url } : { url, detail } };
}

function userPart(part: UserPart): ContentPart {
  switch (part.type) {
    case 'text':
      return { type: 'text', text: part.text };
    case 'image': {
      const url = imageUrlOf(part.image, part.mediaType);
      return url !== undefined
        ? imagePart(url, imageDetailOf(part.providerOptions))
        : { type: 'text', text: fileMarker(undefined, part.mediaType ?? 'image') };
    }
    case 'file': {
      const data = part.data as { type?: unknown; text?: unknown };
      if (typeof data === 'object' && data !== null && data.type === 'text' && typeof data.text === 'string')
        return { type: 'text', text: data.text };
      const url = isImageMediaType(part.mediaType) ? imageUrlOf(part.data, part.mediaType) : undefined;
      return url !== undefined
        ? imagePart(url, imageDetailOf(part.providerOptions))
        : { type: 'text', text: fileMarker(part.filename, part.mediaType) };
    }
    default:
      return { type: 'text', text: `[${String((part as { type?: unknown }).type)}]` };
  }
}

/** The JSON text of a tool call's input (`''` when there is none). */
export function argumentsOf(input: unknown): string {
  if (input === undefined) return '';
  try {
    return JSON.stringify(input) ?? '';
  } catch {
    return String(input);
  }
}

function made<T extends ChatMessage>(message: T, origin: MessageOrigin): T {
  const frozen = freezeChatMessage(message);
  recordOrigin(frozen, origin);
  return frozen;
}

/**
 * The ctxkit messages of one AI SDK message: one message per message, except a tool message,
 * which gives one ctxkit tool message per tool result.
 * @throws ModelMessageError (`CTXKIT_HISTORY_INVALID`) naming `index`
 */
export function modelMessageToChat(message: unknown, index: number): ChatMessage[] {
  if (message === null || typeof message !== 'object') throw new ModelMessageError(index, 'not a message object');
  const source = message as ModelMessage;
  const role = (source as { role?: unknown }).role;
  const content = (source as { content?: unknown }).content;
  switch (role) {
    case 'system':
      if (typeof content !== 'string') throw new ModelMessageError(index, 'a system message needs string content');
      return [made({ role: 'system', content }, { source })];
    case 'user':
      if (typeof content === 'string') return [made({ role: 'user', content }, { source })];
      if (!Array.isArray(content))
        throw new ModelMessageError(index, 'user content must be a string or an array of parts');
      return [made({ role: 'user', content: (content as UserPart[]).map(userPart) }, { source })];
    case 'assistant': {
      if (typeof content === 'string') return [made({ role: 'assistant', content }, { source })];
      if (!Array.isArray(content))
        throw new ModelMessageError(index, 'assistant content must be a string or an array of parts');
      let text: string | null = null;
      const calls: ToolCall[] = [];
      const reasoning: ReasoningItem[] = [];
      // Part options after the kept parts, the text's first, then the calls' in order: the order a rebuilt message
      // gives again.
      let textOptions: ReasoningItem | undefined;
      const callOptions: ReasoningItem[] = [];
      (content as Exclude<typeof content, string>).forEach((part, position) => {
        const options = part.providerOptions as Record<string, unknown> | undefined;
        if (part.type === 'text') {
          text = (text ?? '') + part.text;
          // The first text part's options (a Gemini thought signature) stay with the message's text.
          if (options !== undefined) textOptions ??= keptOptionsItem(structuredClone(options));
        } else if (part.type === 'tool-call' && part.providerExecuted !== true) {
          calls.push({
            id: part.toolCallId,
            type: 'function',
            function: { name: part.toolName, arguments: argumentsOf(part.input) },
          });
          if (options !== undefined) callOptions.push(keptOptionsItem(structuredClone(options), part.toolCallId));
        } else reasoning.push(keptPartItem(part, position));
      });
      if (textOptions) reasoning.push(textOptions);
      reasoning.push(...callOptions);
      const converted: AssistantMessage = { role: 'assistant', content: text };
      if (calls.length > 0) converted.tool_calls = calls;
      if (reasoning.length > 0) converted.reasoning = reasoning;
      return [made(converted, { source })];
    }
    case 'tool': {
      if (!Array.isArray(content))
        throw new ModelMessageError(index, 'tool content must be an array of tool-result parts');
      const results: ChatMessage[] = [];
      (content as unknown[]).forEach((part, position) => {
        const result = part as { type?: unknown; toolCallId?: unknown; output?: unknown };
        if (result?.type !== 'tool-result') return;
        if (typeof result.toolCallId !== 'string' || typeof result.output !== 'object' || result.output === null) {
          throw new ModelMessageError(index, `tool-result part ${position} needs a string toolCallId and an output`);
        }
        const output = result.output as Parameters<typeof toolResultText>[0];
        results.push(
          made(
            { role: 'tool', tool_call_id: result.toolCallId, content: toolResultText(output) },
            { source, part: position },
          ),
        );
      });
      return results;
    }
    default:
      throw new ModelMessageError(index, `unknown role ${JSON.stringify(role)}`);
  }
}

/**
 * Converts AI SDK messages (`ModelMessage[]`, or a provider-level prompt) to ctxkit's
 * `ChatMessage[]`: text as content, images as `image_url` parts, tool-call parts as `tool_calls`,
 * each tool result as a `role: 'tool'` message, and every part ctxkit has no field for (reasoning,
 * files the assistant generated, provider-executed tools ...) as a reasoning item of provider
 * `ai-sdk` on the message it came with, as are the provider options of text and tool-call parts
 * (such as Gemini's thought signatures), so that they go back on their parts. The messages returned are frozen; given
 * back unchanged to {@link toModelMessages} they give exactly the messages they came from.
 * @throws ModelMessageError (`CTXKIT_HISTORY_INVALID`) for a message that is not an AI SDK message
 */
export function toChatMessages(messages: AnyModelMessages): ChatMessage[] {
  if (!Array.isArray(messages)) throw new ModelMessageError(-1, 'the messages must be an array');
  const converted: ChatMessage[] = [];
  (messages as readonly unknown[]).forEach((message, index) => converted.push(...modelMessageToChat(message, index)));
  return converted;
}
