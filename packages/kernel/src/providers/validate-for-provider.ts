import { type ChatMessage, ProviderPayloadError, type ToolDefinition } from '@ctxkit/core';
import { findPayloadProblems } from '@ctxkit/core/strategy-kit';

import { type AnthropicMessage, toAnthropicMessages } from './anthropic-adapter';
import { toResponsesInput } from './openai-responses-adapter';
import type { ProviderName } from './provider-name';
import { findAnthropicThinkingProblems, findResponsesReasoningProblems } from './reasoning-rules';
import { thinkingLeftOut, type ThinkingPrefixBinding } from './thinking-prefix-binding';

/** The rule that refuses a signed thinking block whose prefix changed. */
export const THINKING_PREFIX_RULE = 'anthropic-thinking-prefix-changed';

/** The fix named by the error when a payload carries a signed thinking block whose prefix changed. */
export const THINKING_PREFIX_FIX =
  'Leave out the signed thinking blocks whose prefix changed: `ThinkingPrefixBinding.review(messages, tools)` ' +
  'returns the payload without them and says which (the agent loop does this for Anthropic on its own), or ask ' +
  'the API to drop them with `thinking.block_binding.prefix_mismatch_behavior: "drop_block"`. The request was ' +
  'not sent.';

/** What the validity check knows of the conversation beyond one payload's messages. */
export interface ProviderCheckContext {
  /**
   * The conversation's prefix binding of signed thinking blocks (Anthropic): a payload that still
   * carries a block whose prefix changed since the model wrote it is refused
   * (`anthropic-thinking-prefix-changed`).
   */
  thinkingBinding?: ThinkingPrefixBinding;
  /** The tool definitions sent with the messages (part of the prefix a thinking block is bound to). */
  tools?: ReadonlyArray<Readonly<ToolDefinition>>;
}

/**
 * True when the assistant message(s) that started the tool loop the payload ends in lost their signed
 * thinking to the prefix binding: the API proceeds without it, as when it drops such a block itself.
 */
export function loopThinkingLeftOut(messages: ReadonlyArray<Readonly<ChatMessage>>): boolean {
  let index = messages.length - 1;
  while (index >= 0 && (messages[index]!.role === 'tool' || messages[index]!.role === 'user')) index--;
  for (; index >= 0 && messages[index]!.role === 'assistant'; index--)
    if (thinkingLeftOut(messages[index]!)) return true;
  return false;
}

/** One reason a provider would reject a message list, with the canonical index it concerns. */
export interface ProviderProblem {
  /**
   * Index in the canonical messages (in the converted Anthropic messages for `anthropic-*` rules, in
   * the Responses input items for `openai-reasoning-*` rules).
   */
  index: number;
  rule: string;
  detail: string;
}

function duplicateCallIds(messages: ReadonlyArray<Readonly<ChatMessage>>): ProviderProblem[] {
  const problems: ProviderProblem[] = [];
  messages.forEach((message, index) => {
    if (message.role !== 'assistant' || !message.tool_calls) return;
    const seen = new Set<string>();
    for (const call of message.tool_calls) {
      if (seen.has(call.id))
        problems.push({
          index,
          rule: 'duplicate-call-id',
          detail: `tool call id ${call.id} appears twice in one message`,
        });
      seen.add(call.id);
    }
  });
  return problems;
}

function openAIChatProblems(messages: ReadonlyArray<Readonly<ChatMessage>>): ProviderProblem[] {
  const problems = duplicateCallIds(messages);
  messages.forEach((message, index) => {
    if (
      message.role === 'assistant' &&
      (message.content === null || message.content === undefined) &&
      !(message.tool_calls && message.tool_calls.length > 0)
    ) {
      problems.push({
        index,
        rule: 'empty-assistant',
        detail: 'assistant message with neither content nor tool_calls',
      });
    }
  });
  return problems;
}

/** Checks converted Anthropic messages against the Messages API rules. */
export function findAnthropicProblems(messages: readonly AnthropicMessage[]): ProviderProblem[] {
  const problems: ProviderProblem[] = [];
  const first = messages[0];
  const opensWithCompaction = first?.role === 'assistant' && first.content[0]?.type === 'compaction';
  if (first && first.role !== 'user' && !opensWithCompaction)
    problems.push({
      index: 0,
      rule: 'anthropic-first-not-user',
      detail: 'the first message must be a user message (or an assistant message that opens with a compaction block)',
    });

  const seenIds = new Set<string>();
  messages.forEach((message, index) => {
    const previous = messages[index - 1];
    if (previous && previous.role === message.role) {
      problems.push({ index, rule: 'anthropic-alternation', detail: `two ${message.role} messages in a row` });
    }
    if (message.content.length === 0)
      problems.push({ index, rule: 'anthropic-empty-message', detail: 'a message without content blocks' });
    const uses = new Set<string>();
    if (previous && previous.role === 'assistant') {
      for (const block of previous.content) if (block.type === 'tool_use') uses.add(block.id);
    }
    let afterOther = false;
    for (const block of message.content) {
      if (block.type === 'tool_use') {
        if (seenIds.has(block.id))
          problems.push({
            index,
            rule: 'anthropic-duplicate-tool-use-id',
            detail: `tool_use id ${block.id} is used twice`,
          });
        seenIds.add(block.id);
      }
      if (block.type === 'tool_result') {
        if (message.role !== 'user')
          problems.push({ index, rule: 'anthropic-tool-result-role', detail: 'tool_result outside a user message' });
        if (!uses.has(block.tool_use_id)) {
          problems.push({
            index,
            rule: 'anthropic-tool-result-without-use',
            detail: `tool_result ${block.tool_use_id} does not follow its tool_use`,
          });
        }
        uses.delete(block.tool_use_id);
        if (afterOther)
          problems.push({
            index,
            rule: 'anthropic-tool-result-order',
            detail: 'tool_result blocks must come first in their user message',
          });
      } else {
        afterOther = true;
      }
    }
    if (previous && previous.role === 'assistant' && uses.size > 0) {
      problems.push({
        index,
        rule: 'anthropic-tool-use-without-result',
        detail: `no tool_result for ${[...uses].join(', ')}`,
      });
    }
  });
  const last = messages[messages.length - 1];
  if (last && last.role === 'assistant' && last.content.some((block) => block.type === 'tool_use')) {
    problems.push({
      index: messages.length - 1,
      rule: 'anthropic-tool-use-without-result',
      detail: 'the conversation ends on a tool_use without its tool_result',
    });
  }
  return problems;
}

/**
 * Every reason `provider` would reject `messages`: core's `findPayloadProblems` (orphan tool
 * results, calls without results, a leading tool message, system messages after the start, no
 * user message, unknown roles) plus the provider's own rules:
 * - `openai-chat`: no assistant message without content and tool calls; no call id twice in one
 *   message (a tool message must follow its assistant `tool_calls`, which the core check covers);
 * - `openai-responses`: the core rules (call ids are made unique by the adapter), and every
 *   reasoning item is followed by the function_call or assistant message it belongs to;
 * - `anthropic`: after conversion, the first message is a user message (or an assistant message that
 *   opens with a compaction block: a compaction block is the conversation's first block), roles alternate, every
 *   `tool_result` follows its `tool_use` in the message right before, comes first in its message,
 *   `tool_use` ids are unique, tool arguments are JSON objects; thinking blocks come first in their
 *   message with their signature, and a payload that ends inside a tool loop of a thinking
 *   conversation keeps the loop's thinking block (unless the prefix binding left it out); with the
 *   conversation's `thinkingBinding` in `context`, no signed thinking block whose prefix changed is
 *   carried (see `ThinkingPrefixBinding`).
 * Returns an empty list for a valid payload.
 */
export function findProviderProblems(
  provider: ProviderName,
  messages: ReadonlyArray<Readonly<ChatMessage>>,
  context: ProviderCheckContext = {},
): ProviderProblem[] {
  const problems: ProviderProblem[] = findPayloadProblems(messages).map((problem) => ({
    index: problem.index,
    rule: problem.problem,
    detail: problem.detail,
  }));
  if (provider === 'openai-chat') problems.push(...openAIChatProblems(messages));
  if (provider === 'anthropic') {
    const converted = toAnthropicMessages(messages);
    for (const bad of converted.invalidToolArguments) {
      problems.push({
        index: bad.messageIndex,
        rule: 'anthropic-invalid-tool-arguments',
        detail: `arguments of ${bad.toolCallId} are not a JSON object`,
      });
    }
    problems.push(...findAnthropicProblems(converted.messages));
    problems.push(...findAnthropicThinkingProblems(converted.messages, loopThinkingLeftOut(messages)));
    if (context.thinkingBinding) problems.push(...context.thinkingBinding.findProblems(messages, context.tools ?? []));
  }
  if (provider === 'openai-responses') problems.push(...findResponsesReasoningProblems(toResponsesInput(messages)));
  return problems;
}

/**
 * The validity check that runs on every payload before it is sent (tool-call pairs stay whole, so no
 * orphan result and no call without its result): fails loudly instead of sending a request the
 * provider would reject.
 * @throws ProviderPayloadError (`CTXKIT_PROVIDER_PAYLOAD_INVALID`) listing every problem found
 * @see docs/08-kernel.md
 */
export function validateForProvider(
  provider: ProviderName,
  messages: ReadonlyArray<Readonly<ChatMessage>>,
  context: ProviderCheckContext = {},
): void {
  const problems = findProviderProblems(provider, messages, context);
  if (problems.length > 0) {
    const lines = problems.map((problem) => `${problem.rule} at ${problem.index}: ${problem.detail}`);
    if (problems.some((problem) => problem.rule === THINKING_PREFIX_RULE))
      throw new ProviderPayloadError(provider, lines, THINKING_PREFIX_FIX);
    throw new ProviderPayloadError(provider, lines);
  }
}
