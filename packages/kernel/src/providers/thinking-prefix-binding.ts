import { createHash } from 'node:crypto';

import type {
  AssistantMessage,
  ChatMessage,
  InvalidatedThinking,
  ReasoningItem,
  ThinkingPrefixChange,
  ToolDefinition,
} from '@ctxkit/core';
import { contentText } from '@ctxkit/core/strategy-kit';

import type { ProviderProblem } from './validate-for-provider';

type Messages = ReadonlyArray<Readonly<ChatMessage>>;

/** The payload's messages with the invalidated blocks left out, and what was left out. */
export interface ThinkingBindingReview {
  /** The payload's messages; an assistant message that lost blocks is a copy (the same copy every time). */
  messages: ChatMessage[];
  invalidated: InvalidatedThinking[];
}

/** Where a block was bound: the hash of the prefix before its message, and of its system and tools. */
interface Binding {
  prefix: string;
  system: string;
  tools: string;
}

/** The last request sent: its system and tools hashes and the hash of all of it. */
interface SentRequest {
  system: string;
  tools: string;
  final: string;
}

const digest = (...parts: string[]): string => {
  const hash = createHash('sha256');
  for (const part of parts) hash.update(part).update('\u0000');
  return hash.digest('base64');
};

/**
 * True for an Anthropic block the API checks against its prefix: a thinking block with its signature, a redacted one
 * with its data.
 */
export function isSignedThinking(item: Readonly<ReasoningItem>): boolean {
  if (item.provider !== 'anthropic') return false;
  const data = item.data;
  if (data.type === 'thinking') return typeof data.signature === 'string' && data.signature !== '';
  if (data.type === 'redacted_thinking') return typeof data.data === 'string' && data.data !== '';
  return false;
}

function blockKey(item: Readonly<ReasoningItem>): string {
  const data = item.data;
  return digest(String(data.type), String(data.type === 'thinking' ? data.signature : data.data));
}

/**
 * Copies of assistant messages without their signed thinking, one per original, so a payload keeps its identities from
 * call to call.
 */
const leftOutCopies = new WeakMap<object, AssistantMessage>();
/** The original of each copy. */
const originals = new WeakMap<object, Readonly<AssistantMessage>>();

function withoutSignedThinking(message: Readonly<AssistantMessage>): AssistantMessage {
  let copy = leftOutCopies.get(message);
  if (!copy) {
    const rest = (message.reasoning ?? []).filter((item) => !isSignedThinking(item));
    const { reasoning: _dropped, ...fields } = message;
    copy = Object.freeze(rest.length > 0 ? { ...fields, reasoning: rest } : { ...fields }) as AssistantMessage;
    leftOutCopies.set(message, copy);
    originals.set(copy, message);
  }
  return copy;
}

/**
 * True when `message` is a payload's copy of an assistant message whose signed thinking blocks were
 * left out because their prefix changed (the validity check then accepts a tool loop whose thinking
 * is missing, as the API does when it drops such a block itself).
 */
export function thinkingLeftOut(message: Readonly<ChatMessage>): boolean {
  return originals.has(message);
}

/** Hash of what the Messages API receives of one conversation message, cached per message object. */
const messageHashes = new WeakMap<object, string>();

function messageHash(message: Readonly<ChatMessage>): string {
  let hash = messageHashes.get(message);
  if (hash !== undefined) return hash;
  switch (message.role) {
    case 'assistant': {
      const sent = (message.reasoning ?? []).filter((item) => item.provider === 'anthropic').map((item) => item.data);
      hash = digest(
        'assistant',
        JSON.stringify([message.content, message.tool_calls ?? [], message.name ?? null, sent]),
      );
      break;
    }
    case 'tool':
      hash = digest('tool', message.tool_call_id, JSON.stringify(message.content));
      break;
    default:
      hash = digest(message.role, JSON.stringify([message.content, message.name ?? null]));
  }
  messageHashes.set(message, hash);
  return hash;
}

/**
 * Anthropic's prefix binding of signed thinking blocks, for one conversation.
 *
 * On models with preserved thinking, a signed thinking block is bound to everything before it when
 * the model wrote it: the system prompt, the tool list and the earlier messages. A request that sends
 * the block back after any of these changed fails with a 400, unless it asks the API to drop such
 * blocks (`thinking.block_binding.prefix_mismatch_behavior: 'drop_block'`, beta). Every reduction
 * (a drop, a fold, a trim, a pin or recall block, a new system prompt or tool list) changes the prefix
 * of the blocks after it.
 *
 * The rule, given the previous request sent for the conversation and a new payload:
 * - a block is bound to the request whose answer it came with ({@link recordAnswer}; a block the
 *   binding has not seen is taken as the answer to the previous request) and is valid while the
 *   payload repeats that request whole (same system, tools and messages) right before its message;
 * - with no previous request (a new binding), an unseen block is taken as valid;
 * - all signed blocks of one assistant message go together (the API takes the rest of a turn's
 *   consecutive thinking blocks when it drops one);
 * - a message is compared as the Messages API receives it (content, tool calls, thinking blocks; not
 *   ctxkit-only fields such as `output_ref`), after the blocks left out before it.
 *
 * {@link review} leaves invalid blocks out of a payload and says which; {@link commit} records a
 * request as sent; {@link recordAnswer} binds the answer's blocks to it; {@link findProblems} is the
 * validity rule. Blocks and prefixes are kept as hashes.
 * @see docs/08-kernel.md
 */
export class ThinkingPrefixBinding {
  private previous: SentRequest | undefined;
  private readonly bound = new Map<string, Binding>();

  /** The payload with every invalidated signed thinking block left out, and a record of each. Changes nothing. */
  review(messages: Messages, tools: ReadonlyArray<Readonly<ToolDefinition>>): ThinkingBindingReview {
    const out: ChatMessage[] = [];
    const invalidated: InvalidatedThinking[] = [];
    this.walk(messages, tools, (message, index, verdict) => {
      if (verdict === undefined || verdict.valid) {
        out.push(message as ChatMessage);
        return message;
      }
      const copy = withoutSignedThinking(message as AssistantMessage);
      out.push(copy);
      invalidated.push({ messageIndex: index, blocks: verdict.blocks, changed: verdict.changed });
      return copy;
    });
    return { messages: out, invalidated };
  }

  /**
   * The validity rule: one problem (`anthropic-thinking-prefix-changed`) per assistant message that
   * still carries signed thinking blocks whose prefix changed.
   */
  findProblems(messages: Messages, tools: ReadonlyArray<Readonly<ToolDefinition>>): ProviderProblem[] {
    const problems: ProviderProblem[] = [];
    this.walk(messages, tools, (message, index, verdict) => {
      if (verdict && !verdict.valid) {
        problems.push({
          index,
          rule: 'anthropic-thinking-prefix-changed',
          detail:
            `${verdict.blocks} signed thinking block(s) whose prefix changed (the ${verdict.changed} before ` +
            `them differ from when the model wrote them): leave them out or ask the API to drop them`,
        });
      }
      return message;
    });
    return problems;
  }

  /**
   * Records `messages` and `tools` as the request sent. Every signed block it holds (or left out, on a
   * copy from {@link review}) that this binding had not seen is bound: to the previous request, which
   * the model answered when it wrote it, or, in a new binding, to the prefix it has here.
   */
  commit(messages: Messages, tools: ReadonlyArray<Readonly<ToolDefinition>>): void {
    const fresh: Array<[string, Binding]> = [];
    const previous = this.previous;
    const sent = this.walk(messages, tools, (message, _index, _verdict, prefix) => {
      if (message.role !== 'assistant') return message;
      const source = originals.get(message) ?? message;
      for (const item of (source as AssistantMessage).reasoning ?? []) {
        if (!isSignedThinking(item)) continue;
        const key = blockKey(item);
        if (!this.bound.has(key))
          fresh.push([
            key,
            previous ? { prefix: previous.final, system: previous.system, tools: previous.tools } : prefix,
          ]);
      }
      return message;
    });
    for (const [key, binding] of fresh) if (!this.bound.has(key)) this.bound.set(key, binding);
    this.previous = sent;
  }

  /**
   * Binds the signed blocks of the model's answer to the request it answered (the last one
   * committed): exact even when the next payload leaves the answer out and a later one brings it back.
   * Without it, an unseen block is judged against the request before the payload that first holds it.
   */
  recordAnswer(message: Readonly<ChatMessage>): void {
    const previous = this.previous;
    if (!previous || message.role !== 'assistant') return;
    for (const item of message.reasoning ?? []) {
      if (!isSignedThinking(item)) continue;
      const key = blockKey(item);
      if (!this.bound.has(key))
        this.bound.set(key, { prefix: previous.final, system: previous.system, tools: previous.tools });
    }
  }

  /**
   * Walks the payload in order, judging each assistant message's signed blocks; `visit` returns the message as sent.
   */
  private walk(
    messages: Messages,
    tools: ReadonlyArray<Readonly<ToolDefinition>>,
    visit: (
      message: Readonly<ChatMessage>,
      index: number,
      verdict: { valid: boolean; blocks: number; changed: ThinkingPrefixChange } | undefined,
      prefix: Binding,
    ) => Readonly<ChatMessage>,
  ): SentRequest {
    const systemTexts = messages
      .filter((message) => message.role === 'system')
      .map((message) => contentText(message.content));
    const system = digest(JSON.stringify(systemTexts));
    const toolsHash = digest(JSON.stringify(tools));
    let chain = digest(system, toolsHash);
    const previous = this.previous;
    // An unseen block is bound to the previous request (see the class comment); with none, it is taken as valid.
    const fresh: Binding | undefined = previous
      ? { prefix: previous.final, system: previous.system, tools: previous.tools }
      : undefined;
    messages.forEach((message, index) => {
      if (message.role === 'system') {
        visit(message, index, undefined, { prefix: chain, system, tools: toolsHash });
        return;
      }
      const here: Binding = { prefix: chain, system, tools: toolsHash };
      let verdict: { valid: boolean; blocks: number; changed: ThinkingPrefixChange } | undefined;
      const signed = message.role === 'assistant' ? (message.reasoning ?? []).filter(isSignedThinking) : [];
      if (signed.length > 0) {
        let changed: ThinkingPrefixChange | undefined;
        for (const item of signed) {
          const binding = this.bound.get(blockKey(item));
          const bound = binding ?? fresh;
          const reason = bound ? changeFrom(bound, here) : undefined;
          if (reason !== undefined) {
            changed = reason;
            break;
          }
        }
        verdict = { valid: changed === undefined, blocks: signed.length, changed: changed ?? 'messages' };
      }
      const sent = visit(message, index, verdict, here);
      chain = digest(chain, messageHash(sent));
    });
    return { system, tools: toolsHash, final: chain };
  }
}

/** What differs between the prefix a block was bound to and the prefix it has now; `undefined` when nothing. */
function changeFrom(bound: Binding, now: Binding): ThinkingPrefixChange | undefined {
  if (bound.system !== now.system) return 'system';
  if (bound.tools !== now.tools) return 'tools';
  return bound.prefix === now.prefix ? undefined : 'messages';
}
