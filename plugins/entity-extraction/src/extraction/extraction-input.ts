import { type ChatMessage } from '@ctxkit/core';
import { contentText } from '@ctxkit/core/strategy-kit';

import { toolCallOfResult } from './tool-call-of-result';

/** A piece of text the extraction reads, with where it came from. */
export interface ExtractionSource {
  /** Index into the caller's history. */
  index: number;
  kind: 'user' | 'assistant-text' | 'tool-call-arguments' | 'tool-output';
  text: string;
  /** For tool-call arguments and tool outputs: the function called (`get_user_details`), when known. */
  toolName?: string;
}

/**
 * Which new messages start an extraction: new user messages only, or new user messages and new
 * tool results (read as they arrive, within the agent's tool steps).
 */
export type ExtractionTrigger = 'user-messages' | 'user-messages-and-tool-results';

/**
 * What one extraction reads: every message after the previous extraction point up to the newest
 * message that starts an extraction (see {@link ExtractionTrigger}): the new user messages, the
 * new tool results (with the function that produced them), and the agent's traffic in between
 * (assistant text, tool-call arguments), plus the last assistant message before the newest user
 * message (context for a model).
 */
export interface ExtractionInput {
  /** New user messages, oldest first. Empty when only tool results are new. */
  userMessages: ExtractionSource[];
  /** New tool results (kind `tool-output`), oldest first; also listed in `context`. */
  toolResults: ExtractionSource[];
  /** The newest message read (a user message or a tool result): the source of the resulting version. */
  sourceMessageIndex: number;
  /**
   * Text of the last assistant message with text before the newest new user message (or before the source), or `null`.
   */
  lastAssistantText: string | null;
  /** Assistant and tool messages between the previous extraction point and the source, oldest first. */
  context: ExtractionSource[];
}

function startsExtraction(message: Readonly<ChatMessage>, trigger: ExtractionTrigger): boolean {
  return message.role === 'user' || (trigger === 'user-messages-and-tool-results' && message.role === 'tool');
}

/**
 * Builds the input of the extraction for the messages after `processedThrough` (a history index;
 * -1 when nothing was extracted yet). Returns `null` when no new message starts an extraction (a
 * new assistant message alone does not: it is read with the next user message or tool result).
 * Reads the history only; never modifies it.
 */
export function buildExtractionInput(
  history: ReadonlyArray<Readonly<ChatMessage>>,
  processedThrough: number,
  trigger: ExtractionTrigger = 'user-messages',
): ExtractionInput | null {
  const userMessages: ExtractionSource[] = [];
  const toolResults: ExtractionSource[] = [];
  const context: ExtractionSource[] = [];
  let source = -1;
  for (let index = history.length - 1; index > processedThrough; index--) {
    if (startsExtraction(history[index]!, trigger)) {
      source = index;
      break;
    }
  }
  if (source === -1) return null;
  let newestUser = -1;
  for (let index = processedThrough + 1; index <= source; index++) {
    const message = history[index]!;
    if (message.role === 'user') {
      userMessages.push({ index, kind: 'user', text: contentText(message.content) });
      newestUser = index;
    } else if (message.role === 'assistant') {
      const text = contentText(message.content ?? null);
      if (text) context.push({ index, kind: 'assistant-text', text });
      for (const call of message.tool_calls ?? [])
        context.push({
          index,
          kind: 'tool-call-arguments',
          text: call.function.arguments,
          toolName: call.function.name,
        });
    } else if (message.role === 'tool') {
      const call = toolCallOfResult(history, index);
      const result: ExtractionSource = {
        index,
        kind: 'tool-output',
        text: contentText(message.content),
        ...(call ? { toolName: call.function.name } : {}),
      };
      context.push(result);
      toolResults.push(result);
    }
  }
  let lastAssistantText: string | null = null;
  for (let index = (newestUser === -1 ? source : newestUser) - 1; index >= 0; index--) {
    const message = history[index]!;
    if (message.role === 'assistant') {
      const text = contentText(message.content ?? null);
      if (text) {
        lastAssistantText = text;
        break;
      }
    }
  }
  return { userMessages, toolResults, sourceMessageIndex: source, lastAssistantText, context };
}
