import type { BaseLanguageModelInput } from '@langchain/core/language_models/base';
import { BaseChatModel } from '@langchain/core/language_models/chat_models';
import type { AIMessage, AIMessageChunk, BaseMessage } from '@langchain/core/messages';
import type { ChatResult } from '@langchain/core/outputs';
import type { Runnable } from '@langchain/core/runnables';

/** One request a {@link RecordingChatModel} received: the messages and the tools bound for it. */
export interface RecordedModelRequest {
  messages: BaseMessage[];
  tools: unknown[];
}

/** Answers one request. */
export type ModelReply = (messages: BaseMessage[], call: number) => AIMessage;

/**
 * A chat model for tests: records every request with the tools bound for it, and answers with
 * `reply`. Bound copies share the record.
 */
export class RecordingChatModel extends BaseChatModel {
  readonly requests: RecordedModelRequest[];
  private boundTools: unknown[] = [];

  constructor(
    private readonly reply: ModelReply,
    requests: RecordedModelRequest[] = [],
  ) {
    super({});
    this.requests = requests;
  }

  _llmType(): string {
    return 'recording';
  }

  override bindTools(tools: unknown[]): Runnable<BaseLanguageModelInput, AIMessageChunk> {
    const bound = new RecordingChatModel(this.reply, this.requests);
    bound.boundTools = [...tools];
    return bound as unknown as Runnable<BaseLanguageModelInput, AIMessageChunk>;
  }

  async _generate(messages: BaseMessage[]): Promise<ChatResult> {
    this.requests.push({ messages: [...messages], tools: this.boundTools });
    const message = this.reply(messages, this.requests.length - 1);
    return { generations: [{ text: message.text, message }] };
  }
}
