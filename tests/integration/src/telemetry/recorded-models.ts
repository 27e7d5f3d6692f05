import type { BaseLanguageModelInput } from '@langchain/core/language_models/base';
import { BaseChatModel } from '@langchain/core/language_models/chat_models';
import { AIMessage, type AIMessageChunk, type BaseMessage } from '@langchain/core/messages';
import type { ChatResult } from '@langchain/core/outputs';
import type { Runnable } from '@langchain/core/runnables';
import { type AgentOutputItem, type Model, type ModelResponse, Usage } from '@openai/agents';

import type { RecordedReply } from './replay-record';

/**
 * The model of each framework, answering a replay with the current turn's recorded replies, in
 * order, then "Anything else?" (the AI SDK's mock model takes {@link aiSdkGenerated} as its answer).
 */

const AI_SDK_USAGE = {
  inputTokens: { total: 10, noCache: 10, cacheRead: 0, cacheWrite: 0 },
  outputTokens: { total: 5, text: 5, reasoning: 0 },
};

/** What `MockLanguageModelV4`'s `doGenerate` answers for a recorded reply. */
export function aiSdkGenerated(reply: RecordedReply) {
  if (reply.calls.length === 0)
    return {
      content: [{ type: 'text' as const, text: reply.text }],
      finishReason: { unified: 'stop' as const, raw: 'stop' },
      usage: AI_SDK_USAGE,
      warnings: [],
    };
  return {
    content: reply.calls.map((call) => ({
      type: 'tool-call' as const,
      toolCallId: call.id,
      toolName: call.name,
      input: call.arguments,
    })),
    finishReason: { unified: 'tool-calls' as const, raw: 'tool_calls' },
    usage: AI_SDK_USAGE,
    warnings: [],
  };
}

/** A LangChain chat model that answers with the current turn's recorded replies, in order. */
export class RecordedChatModel extends BaseChatModel {
  calls = { count: 0 };
  queue: { replies: RecordedReply[] } = { replies: [] };

  _llmType(): string {
    return 'recorded';
  }

  override bindTools(): Runnable<BaseLanguageModelInput, AIMessageChunk> {
    const bound = new RecordedChatModel({});
    bound.calls = this.calls;
    bound.queue = this.queue;
    return bound as unknown as Runnable<BaseLanguageModelInput, AIMessageChunk>;
  }

  async _generate(_messages: BaseMessage[]): Promise<ChatResult> {
    this.calls.count++;
    const reply = this.queue.replies.shift() ?? { text: 'Anything else?', calls: [] };
    const message = new AIMessage({
      content: reply.text,
      tool_calls: reply.calls.map((call) => ({
        id: call.id,
        name: call.name,
        args: JSON.parse(call.arguments) as Record<string, unknown>,
        type: 'tool_call' as const,
      })),
    });
    return { generations: [{ text: reply.text, message }] };
  }
}

/** An OpenAI Agents SDK model answering with the current turn's recorded replies. */
export class RecordedAgentsModel implements Model {
  calls = 0;
  replies: RecordedReply[] = [];

  async getResponse(): Promise<ModelResponse> {
    this.calls++;
    const reply = this.replies.shift() ?? { text: 'Anything else?', calls: [] };
    const output: AgentOutputItem[] =
      reply.calls.length > 0
        ? reply.calls.map((call) => ({
            type: 'function_call',
            callId: call.id,
            name: call.name,
            arguments: call.arguments,
            status: 'completed',
          }))
        : [
            {
              type: 'message',
              role: 'assistant',
              status: 'completed',
              content: [{ type: 'output_text', text: reply.text }],
            },
          ];
    return { usage: new Usage(), output };
  }

  // eslint-disable-next-line require-yield
  async *getStreamedResponse(): AsyncIterable<never> {
    throw new Error('RecordedAgentsModel answers getResponse only.');
  }
}
