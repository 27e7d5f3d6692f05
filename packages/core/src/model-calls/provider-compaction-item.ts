import type { AssistantMessage, ReasoningItem } from '../contracts/chat-message';

/**
 * The provider's compaction item an answer to a compaction request carries (see
 * `LLMCompletionRequest.providerCompaction`): an Anthropic `compaction` block with text content, or an
 * OpenAI `compaction` item with encrypted content. `undefined` when the answer holds none, or only a
 * failed one (an Anthropic block whose content is `null`): the compaction did not happen.
 */
export function providerCompactionItem(message: Readonly<AssistantMessage>): ReasoningItem | undefined {
  return message.reasoning?.find(
    (item) =>
      item.data.type === 'compaction' &&
      ((item.provider === 'anthropic' && typeof item.data.content === 'string' && item.data.content.trim() !== '') ||
        (item.provider === 'openai' &&
          typeof item.data.encrypted_content === 'string' &&
          item.data.encrypted_content !== '')),
  );
}

/**
 * The readable summary of a provider compaction item (Anthropic's content), `undefined` for an encrypted one
 * (OpenAI's).
 */
export function providerCompactionText(item: Readonly<ReasoningItem>): string | undefined {
  return item.provider === 'anthropic' && typeof item.data.content === 'string' ? item.data.content : undefined;
}
