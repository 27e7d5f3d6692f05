import type { AssistantMessage } from '@ctxkit/core';
import { fromChatMessage } from '@ctxkit/langchain';
import type { BaseLanguageModelInput } from '@langchain/core/language_models/base';
import { BaseChatModel } from '@langchain/core/language_models/chat_models';
import { AIMessage, type AIMessageChunk, type BaseMessage } from '@langchain/core/messages';
import type { ChatResult } from '@langchain/core/outputs';
import type { Runnable } from '@langchain/core/runnables';

/** One request the model received: the messages and the tools bound for it. */
export interface ModelRequest {
  messages: BaseMessage[];
  tools: unknown[];
}

/** What the model answers past the recording, so that every run ends. */
export const CLOSING_REPLY = 'Is there anything else I can help you with?';

interface ReplayState {
  pending: AssistantMessage[];
  requests: ModelRequest[];
}

/**
 * A LangChain chat model that replays a recorded agent: `startTurn(replies)` loads the recorded
 * assistant messages of one user turn and each call answers with the next one (tool calls
 * included), converted with `fromChatMessage`. A call past the recording gets {@link CLOSING_REPLY}.
 * It records every request with the tools bound for it; bound copies share the record.
 */
export class ReplayChatModel extends BaseChatModel {
  private boundTools: unknown[] = [];

  constructor(private readonly state: ReplayState = { pending: [], requests: [] }) {
    super({});
  }

  /** Every request received so far, in order. */
  get requests(): ModelRequest[] {
    return this.state.requests;
  }

  /** Loads the recorded answers of the next turn. */
  startTurn(replies: readonly AssistantMessage[]): void {
    this.state.pending = replies.map((reply) => structuredClone(reply));
  }

  _llmType(): string {
    return 'recorded-replay';
  }

  override bindTools(tools: unknown[]): Runnable<BaseLanguageModelInput, AIMessageChunk> {
    const bound = new ReplayChatModel(this.state);
    bound.boundTools = [...tools];
    return bound as unknown as Runnable<BaseLanguageModelInput, AIMessageChunk>;
  }

  async _generate(messages: BaseMessage[]): Promise<ChatResult> {
    this.state.requests.push({ messages: [...messages], tools: this.boundTools });
    const next = this.state.pending.shift();
    const message = next ? (fromChatMessage(next) as AIMessage) : new AIMessage(CLOSING_REPLY);
    return { generations: [{ text: message.text, message }] };
  }
}
