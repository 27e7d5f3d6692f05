import type { BaseMessage } from '@langchain/core/messages';

import type { LangChainChatMessage } from './langchain-origin';
import { toChatMessage } from './to-chat-messages';

/**
 * Converts a conversation's LangChain messages to ctxkit messages, each message once: a message
 * seen before gives the same ctxkit object again, so that a strategy's token ledger recognises the
 * history it already counted and each model call costs only the new messages.
 */
export class HistoryConverter {
  private readonly converted = new WeakMap<BaseMessage, LangChainChatMessage>();

  /**
   * The ctxkit messages of `messages`, one for one.
   * @throws LangChainMessageError (`CTXKIT_HISTORY_INVALID`) naming the first message that cannot be converted
   */
  convert(messages: ReadonlyArray<BaseMessage>): LangChainChatMessage[] {
    return messages.map((message, index) => {
      let chat = this.converted.get(message);
      if (chat === undefined) {
        chat = toChatMessage(message, index);
        this.converted.set(message, chat);
      }
      return chat;
    });
  }
}
