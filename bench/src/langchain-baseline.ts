import type { ChatMessage, ITokenCounter } from '@ctxkit/core';
import {
  AIMessage,
  type BaseMessage,
  HumanMessage,
  SystemMessage,
  ToolMessage,
  trimMessages,
} from '@langchain/core/messages';

/** Converts ctxkit's OpenAI-shaped messages to LangChain messages (done once, outside the timings). */
export function toLangChain(systemPrompt: string, history: ReadonlyArray<ChatMessage>): BaseMessage[] {
  const out: BaseMessage[] = [new SystemMessage(systemPrompt)];
  for (const message of history) out.push(convert(message));
  return out;
}

export function convert(message: ChatMessage): BaseMessage {
  const text =
    typeof message.content === 'string'
      ? message.content
      : message.content === null
        ? ''
        : message.content.map((part) => (part.type === 'text' ? part.text : '')).join('\n');
  switch (message.role) {
    case 'system':
      return new SystemMessage(text);
    case 'user':
      return new HumanMessage(text);
    case 'assistant':
      return new AIMessage({
        content: text,
        tool_calls: (message.tool_calls ?? []).map((call) => ({
          id: call.id,
          name: call.function.name,
          args: safeJson(call.function.arguments),
          type: 'tool_call' as const,
        })),
      });
    case 'tool':
      return new ToolMessage({ content: text, tool_call_id: message.tool_call_id });
  }
}

function safeJson(text: string): Record<string, unknown> {
  try {
    const value = JSON.parse(text) as unknown;
    return typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : { value };
  } catch {
    return { raw: text };
  }
}

function messageTextOf(message: BaseMessage): string {
  let text = typeof message.content === 'string' ? message.content : JSON.stringify(message.content);
  if (message instanceof AIMessage)
    for (const call of message.tool_calls ?? []) text += `\n${call.name}\n${JSON.stringify(call.args)}`;
  return text;
}

/** LangChain's `tokenCounter` with counts memoized per message object (its fair best). */
export function memoizedCounter(counter: ITokenCounter): (messages: BaseMessage[]) => number {
  const memo = new WeakMap<BaseMessage, number>();
  return (messages) => {
    let total = 0;
    for (const message of messages) {
      let tokens = memo.get(message);
      if (tokens === undefined) {
        tokens = counter.countUpTo(messageTextOf(message), Number.POSITIVE_INFINITY) + 4;
        memo.set(message, tokens);
      }
      total += tokens;
    }
    return total;
  };
}

/** LangChain's `tokenCounter` without memo: every call tokenizes every message it is given. */
export function plainCounter(counter: ITokenCounter): (messages: BaseMessage[]) => number {
  return (messages) =>
    messages.reduce(
      (total, message) => total + counter.countUpTo(messageTextOf(message), Number.POSITIVE_INFINITY) + 4,
      0,
    );
}

/**
 * `trimMessages` as LangChain documents it for chat history: keep the system message, the last messages, start on a
 * human message.
 */
export async function langchainTrim(
  messages: BaseMessage[],
  maxTokens: number,
  tokenCounter: (messages: BaseMessage[]) => number,
): Promise<BaseMessage[]> {
  return trimMessages(messages, {
    maxTokens,
    tokenCounter,
    strategy: 'last',
    includeSystem: true,
    startOn: 'human',
    allowPartial: false,
  });
}
