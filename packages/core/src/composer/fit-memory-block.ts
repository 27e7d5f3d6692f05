import type { SystemMessage, UserMessage } from '../contracts/chat-message';
import type { ITokenCounter } from '../token-counting/token-counter';
import { truncateToFit } from '../truncation/truncate-to-fit';
import type { MemoryBlock, MemoryBlockOutcome } from './memory-block';

/** One memory block as it will be sent (or not). */
export interface FittedMemoryBlock {
  block: MemoryBlock;
  outcome: MemoryBlockOutcome;
  /** The message sent; undefined when left out. */
  message: SystemMessage | UserMessage | undefined;
  /** Tokens of `message` (0 when left out). */
  tokens: number;
  /** Tokens of the whole block. */
  fullTokens: number;
}

/** Fewest tokens worth sending for a shortened block (less carries nothing useful). */
export const MIN_MEMORY_BLOCK_TOKENS = 24;

/**
 * Fits one block into `allowance` tokens: whole when it fits, else the block's own `shrink`, else
 * the head of its text with a marker; left out when not even {@link MIN_MEMORY_BLOCK_TOKENS} fit.
 * `messages` caches one message object per text so that counts are reused across calls.
 */
export function fitMemoryBlock(
  block: MemoryBlock,
  allowance: number,
  counter: ITokenCounter,
  messages: Map<string, SystemMessage | UserMessage>,
): FittedMemoryBlock {
  if (block.content.length === 0) return { block, outcome: 'empty', message: undefined, tokens: 0, fullTokens: 0 };
  const role = block.role ?? 'system';
  const whole = blockMessage(role, block.content, messages);
  const fullTokens = block.tokens ?? counter.countMessage(whole);
  if (fullTokens <= allowance) return { block, outcome: 'sent', message: whole, tokens: fullTokens, fullTokens };
  const overhead = counter.countMessage({ role, content: '' });
  const textRoom = allowance - overhead;
  if (allowance < MIN_MEMORY_BLOCK_TOKENS || textRoom <= 0)
    return { block, outcome: 'left-out', message: undefined, tokens: 0, fullTokens };
  let text = block.shrink?.(textRoom);
  if (text === undefined || counter.count(text) > textRoom)
    text = truncateToFit(block.content, { kind: 'head', maxTokens: textRoom, counter }).text;
  const message = blockMessage(role, text, messages);
  const tokens = counter.countMessage(message);
  if (text.length === 0 || tokens > allowance)
    return { block, outcome: 'left-out', message: undefined, tokens: 0, fullTokens };
  return { block, outcome: 'shortened', message, tokens, fullTokens };
}

function blockMessage(
  role: 'system' | 'user',
  content: string,
  messages: Map<string, SystemMessage | UserMessage>,
): SystemMessage | UserMessage {
  const key = `${role}\u0000${content}`;
  const cached = messages.get(key);
  if (cached !== undefined) return cached;
  if (messages.size > 32) messages.clear();
  const message: SystemMessage | UserMessage = { role, content };
  messages.set(key, message);
  return message;
}
