import type { ChatMessage } from '@ctxkit/core';

import type { LanguageModelGenerateResult, LanguageModelStreamPart } from './ai-sdk-types';
import { modelMessageToChat } from './to-chat-messages';

/** The content of a language model's answer (text, reasoning, files, tool calls ...). */
export type ResponseContent = LanguageModelGenerateResult['content'];

/** True when an answer calls no tool the caller runs: the turn is over. */
export function isFinalAnswer(content: ResponseContent): boolean {
  return !content.some((part) => part.type === 'tool-call' && part.providerExecuted !== true);
}

/** The ctxkit assistant message of a final answer: its text, with reasoning and files kept on it. */
export function assistantMessageOf(content: ResponseContent): ChatMessage {
  const parts: unknown[] = [];
  for (const part of content) {
    const metadata =
      'providerMetadata' in part && part.providerMetadata ? { providerOptions: part.providerMetadata } : {};
    if (part.type === 'text') parts.push({ type: 'text', text: part.text, ...metadata });
    else if (part.type === 'reasoning') parts.push({ type: 'reasoning', text: part.text, ...metadata });
    else if (part.type === 'file' || part.type === 'reasoning-file')
      parts.push({ type: part.type, mediaType: part.mediaType, data: part.data, ...metadata });
  }
  const [message] = modelMessageToChat({ role: 'assistant', content: parts }, 0);
  return message!;
}

/** Collects a streamed answer into the content {@link assistantMessageOf} reads. */
export class StreamedAnswer {
  private readonly parts: ResponseContent = [];
  private readonly open = new Map<string, { type: 'text' | 'reasoning'; text: string }>();
  /** True when the stream reported an error (the turn is not complete). */
  failed = false;

  add(part: LanguageModelStreamPart): void {
    switch (part.type) {
      case 'text-start':
      case 'reasoning-start': {
        const entry = { type: part.type === 'text-start' ? ('text' as const) : ('reasoning' as const), text: '' };
        this.open.set(`${entry.type}:${part.id}`, entry);
        this.parts.push(entry as ResponseContent[number]);
        break;
      }
      case 'text-delta':
      case 'reasoning-delta': {
        const type = part.type === 'text-delta' ? 'text' : 'reasoning';
        let entry = this.open.get(`${type}:${part.id}`);
        if (!entry) {
          entry = { type, text: '' };
          this.open.set(`${type}:${part.id}`, entry);
          this.parts.push(entry as ResponseContent[number]);
        }
        entry.text += part.delta;
        break;
      }
      case 'tool-call':
      case 'file':
      case 'reasoning-file':
        this.parts.push(part);
        break;
      case 'error':
        this.failed = true;
        break;
      default:
        break;
    }
  }

  /** What was streamed, as the content of a generated answer. */
  get content(): ResponseContent {
    return this.parts;
  }
}
