import { type ChatMessage, CtxkitError } from '@ctxkit/core';
import { assertHistoryShape } from '@ctxkit/core/strategy-kit';

import { fromAgentsItems } from './agents-items';
import { fromAiSdkMessages } from './ai-sdk-messages';
import { fromAnthropicTranscript } from './anthropic-messages';
import { fromLangChainMessages } from './langchain-messages';
import { detectMessageShape, type MessageShape } from './message-shape';
import { fromResponsesItems } from './responses-items';

/** A conversation's messages read as ctxkit messages, or the message that could not be and why. */
export type TranscriptMessages =
  { shape: MessageShape; messages: ChatMessage[] } | { shape: MessageShape; index: number; problem: string };

const CONVERTERS: Record<MessageShape, (messages: readonly unknown[]) => ChatMessage[]> = {
  'openai-chat': (messages) => {
    assertHistoryShape(messages);
    return messages as ChatMessage[];
  },
  'ai-sdk': fromAiSdkMessages,
  langchain: fromLangChainMessages,
  anthropic: fromAnthropicTranscript,
  'openai-responses': fromResponsesItems,
  'openai-agents': fromAgentsItems,
};

/** Reads a conversation's messages in the shape named, or the shape they are in (see {@link detectMessageShape}). */
export function transcriptMessages(messages: readonly unknown[], format?: MessageShape): TranscriptMessages {
  const shape = format ?? detectMessageShape(messages);
  try {
    return { shape, messages: CONVERTERS[shape](messages) };
  } catch (error) {
    if (!CtxkitError.isInstance(error) || typeof error.details.index !== 'number') throw error;
    return { shape, index: error.details.index, problem: String(error.details.problem) };
  }
}
