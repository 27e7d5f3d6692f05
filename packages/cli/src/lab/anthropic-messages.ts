import { type ChatMessage, CtxkitError, HistoryValidationError } from '@ctxkit/core';
import { type AnthropicMessage, fromAnthropicMessages } from '@ctxkit/kernel';

/**
 * Anthropic Messages → ctxkit messages, through the kernel's converter one message at a time (so
 * that an error names the message): `tool_use` blocks become `tool_calls`, `tool_result` blocks
 * tool messages, thinking blocks reasoning items. String content is read as one text block, as
 * the API does.
 * @throws HistoryValidationError (`CTXKIT_HISTORY_INVALID`) naming the message that is not one
 */
export function fromAnthropicTranscript(messages: readonly unknown[]): ChatMessage[] {
  return messages.flatMap((message, index) => {
    const { role, content } = (message ?? {}) as { role?: unknown; content?: unknown };
    if (role !== 'user' && role !== 'assistant')
      throw new HistoryValidationError(
        index,
        `role ${JSON.stringify(role)}; expected user or assistant (the system prompt goes in a top-level "system")`,
      );
    if (typeof content !== 'string' && !Array.isArray(content))
      throw new HistoryValidationError(index, 'content must be a string or an array of blocks');
    const blocks = typeof content === 'string' ? [{ type: 'text', text: content }] : content;
    try {
      return fromAnthropicMessages(undefined, [{ role, content: blocks } as AnthropicMessage]);
    } catch (error) {
      const problem = CtxkitError.isInstance(error) ? error.details.problem : undefined;
      throw new HistoryValidationError(index, typeof problem === 'string' ? problem : (error as Error).message);
    }
  });
}
