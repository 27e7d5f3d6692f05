import type { AnthropicMessage } from './anthropic-adapter';
import type { ResponsesInputItem } from './openai-responses-adapter';
import type { ProviderProblem } from './validate-for-provider';

const isThinkingBlock = (type: string) => type === 'thinking' || type === 'redacted_thinking';

/**
 * Anthropic's rules for thinking blocks, on converted messages:
 * - thinking and redacted_thinking blocks come first in their assistant message;
 * - a thinking block keeps its `signature`, a redacted one its `data` (they are sent back as received);
 * - when the conversation thinks (any thinking block) and ends inside a tool loop (the last message
 *   holds tool results), the assistant message that started the loop begins with a thinking block,
 *   unless `loopThinkingLeftOut` (its signed blocks were left out because their prefix changed: the
 *   API then proceeds without them, as it does when it drops them itself).
 */
export function findAnthropicThinkingProblems(
  messages: readonly AnthropicMessage[],
  loopThinkingLeftOut = false,
): ProviderProblem[] {
  const problems: ProviderProblem[] = [];
  let thinks = false;
  messages.forEach((message, index) => {
    if (message.role !== 'assistant') return;
    let seenOther = false;
    for (const block of message.content) {
      if (block.type === 'compaction') {
        if (seenOther)
          problems.push({
            index,
            rule: 'anthropic-compaction-order',
            detail: 'a compaction block comes after text or tool_use in its assistant message; it must come first',
          });
        if (block.content === '')
          problems.push({
            index,
            rule: 'anthropic-compaction-content',
            detail:
              'a compaction block with empty content (a failed compaction has null content; any other is sent back ' +
              'exactly as received)',
          });
        continue;
      }
      if (!isThinkingBlock(block.type)) {
        seenOther = true;
        continue;
      }
      thinks = true;
      if (seenOther)
        problems.push({
          index,
          rule: 'anthropic-thinking-order',
          detail:
            'a thinking block comes after text or tool_use in its assistant message; thinking blocks must come first',
        });
      if (block.type === 'thinking' && (typeof block.signature !== 'string' || block.signature === '')) {
        problems.push({
          index,
          rule: 'anthropic-thinking-signature',
          detail: 'a thinking block without its signature (it must go back exactly as the model produced it)',
        });
      }
      if (block.type === 'redacted_thinking' && (typeof block.data !== 'string' || block.data === '')) {
        problems.push({
          index,
          rule: 'anthropic-thinking-signature',
          detail: 'a redacted_thinking block without its data',
        });
      }
    }
  });
  const last = messages[messages.length - 1];
  const loopStart = messages[messages.length - 2];
  if (
    thinks &&
    !loopThinkingLeftOut &&
    last?.role === 'user' &&
    last.content.some((block) => block.type === 'tool_result') &&
    loopStart?.role === 'assistant'
  ) {
    if (!isThinkingBlock(loopStart.content.find((block) => block.type !== 'compaction')?.type ?? '')) {
      problems.push({
        index: messages.length - 2,
        rule: 'anthropic-thinking-missing',
        detail:
          'thinking is on and the payload ends inside a tool loop, but the assistant message that called the tools ' +
          'does not start with its thinking block',
      });
    }
  }
  return problems;
}

/**
 * OpenAI Responses' rule for reasoning items: each reasoning item is followed by an item of the same
 * response (another reasoning item, the assistant message or a function_call), never stands last or
 * before a user message or a function_call_output. A compaction item carries its `encrypted_content`
 * (it is sent back exactly as received).
 */
export function findResponsesReasoningProblems(items: readonly ResponsesInputItem[]): ProviderProblem[] {
  const problems: ProviderProblem[] = [];
  items.forEach((item, index) => {
    if (item.type === 'compaction' && (typeof item.encrypted_content !== 'string' || item.encrypted_content === '')) {
      problems.push({
        index,
        rule: 'openai-compaction-content',
        detail: 'a compaction item without its encrypted_content',
      });
    }
    if (item.type !== 'reasoning') return;
    let next = index + 1;
    while (items[next]?.type === 'reasoning') next++;
    const following = items[next];
    const belongs =
      following !== undefined &&
      (following.type === 'function_call' || (following.type === 'message' && following.role === 'assistant'));
    if (!belongs) {
      const name = typeof item.id === 'string' ? `reasoning item ${item.id}` : 'a reasoning item';
      problems.push({
        index,
        rule: 'openai-reasoning-without-following-item',
        detail: `${name} is not followed by the function_call or assistant message it belongs to`,
      });
    }
  });
  return problems;
}
