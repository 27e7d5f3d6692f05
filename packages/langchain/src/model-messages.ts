import { type ChatMessage } from '@ctxkit/core';
import { contentText } from '@ctxkit/core/strategy-kit';
import { type BaseMessage, SystemMessage } from '@langchain/core/messages';

import { fromChatMessages } from './from-chat-messages';
import type { LangChainChatMessage } from './langchain-origin';

/** What the model call gets from a payload: the system message and the conversation. */
export interface ModelMessages {
  systemMessage: SystemMessage;
  messages: BaseMessage[];
}

/**
 * The system message with the strategy's system messages (dynamic context; a running summary or an
 * entity state with `memoryRole: 'system'`) after the prompt: several providers accept a single
 * system message at the start only.
 * A string prompt is joined to them by blank lines; a prompt of content blocks (with cache control,
 * say) keeps its blocks and gets one text block per memory block, starting with a blank line.
 */
export function withMemory(system: SystemMessage, memory: readonly string[]): SystemMessage {
  if (memory.length === 0) return system;
  const content =
    typeof system.content === 'string'
      ? [system.content, ...memory].filter((text) => text !== '').join('\n\n')
      : [
          ...system.content,
          ...memory.map((text, index) => ({
            type: 'text' as const,
            text: index === 0 && system.text === '' ? text : `\n\n${text}`,
          })),
        ];
  return new SystemMessage({
    content,
    ...(system.id !== undefined ? { id: system.id } : {}),
    ...(system.name !== undefined ? { name: system.name } : {}),
    additional_kwargs: system.additional_kwargs,
    response_metadata: system.response_metadata,
  });
}

/**
 * Splits a composed payload into what a LangChain model call takes: the payload's first message
 * is the system prompt the request's `systemMessage` already holds; the system messages the strategy
 * placed after it (converted from no LangChain message) join the system message; the rest is the
 * conversation, converted back to LangChain messages (the originals where unchanged; memory blocks
 * the strategy sends as user messages become human messages).
 */
export function toModelMessages(payload: ReadonlyArray<Readonly<ChatMessage>>, system: SystemMessage): ModelMessages {
  let start = 0;
  const memory: string[] = [];
  const isStrategySystem = (message: Readonly<ChatMessage> | undefined) =>
    message?.role === 'system' && (message as LangChainChatMessage).langchain === undefined;
  if (isStrategySystem(payload[0])) start = 1;
  while (isStrategySystem(payload[start])) memory.push(contentText(payload[start++]!.content));
  return { systemMessage: withMemory(system, memory), messages: fromChatMessages(payload.slice(start)) };
}
