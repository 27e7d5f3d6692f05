import { contentText, type ChatMessage } from '@ctxkit/core';

/** A piece of text the extraction reads, with where it came from. */
export interface ExtractionSource {
  /** Index into the caller's history. */
  index: number;
  kind: 'user' | 'assistant-text' | 'tool-call-arguments' | 'tool-output';
  text: string;
}

/**
 * What one extraction reads: the new user messages since the previous extraction, the last
 * assistant message before the newest of them (context for the model), and the agent's traffic in
 * between (assistant text, tool-call arguments, tool outputs; read by the offline extractor's key
 * cues).
 */
export interface ExtractionInput {
  /** New user messages, oldest first. Never empty. */
  userMessages: ExtractionSource[];
  /** The newest user message's history index: the source of the resulting version. */
  sourceMessageIndex: number;
  /** Text of the last assistant message with text before the newest user message, or `null`. */
  lastAssistantText: string | null;
  /** Assistant and tool messages between the previous extraction point and the newest user message. */
  context: ExtractionSource[];
}

/**
 * Builds the input of the extraction for the user messages after `processedThrough` (a history
 * index; -1 when nothing was extracted yet). Returns `null` when there is no new user message.
 * Reads the history only; never modifies it.
 */
export function buildExtractionInput(history: ReadonlyArray<Readonly<ChatMessage>>, processedThrough: number): ExtractionInput | null {
  const userMessages: ExtractionSource[] = [];
  const context: ExtractionSource[] = [];
  let newestUser = -1;
  for (let index = history.length - 1; index > processedThrough; index--) {
    if (history[index]!.role === 'user') {
      newestUser = index;
      break;
    }
  }
  if (newestUser === -1) return null;
  for (let index = processedThrough + 1; index <= newestUser; index++) {
    const message = history[index]!;
    if (message.role === 'user') {
      userMessages.push({ index, kind: 'user', text: contentText(message.content) });
    } else if (message.role === 'assistant') {
      const text = contentText(message.content ?? null);
      if (text) context.push({ index, kind: 'assistant-text', text });
      for (const call of message.tool_calls ?? []) context.push({ index, kind: 'tool-call-arguments', text: call.function.arguments });
    } else if (message.role === 'tool') {
      context.push({ index, kind: 'tool-output', text: contentText(message.content) });
    }
  }
  let lastAssistantText: string | null = null;
  for (let index = newestUser - 1; index >= 0; index--) {
    const message = history[index]!;
    if (message.role === 'assistant') {
      const text = contentText(message.content ?? null);
      if (text) {
        lastAssistantText = text;
        break;
      }
    }
  }
  return { userMessages, sourceMessageIndex: newestUser, lastAssistantText, context };
}
