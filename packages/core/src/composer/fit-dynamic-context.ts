import type { ChatMessage } from '../contracts/chat-message';
import type { ReductionRecord } from '../contracts/llm-payload';
import type { ITokenCounter } from '../token-counting/token-counter';
import { truncateToFit } from '../truncation/truncate-to-fit';

/** The dynamic context (RAG) as it will be sent. */
export interface FittedDynamicContext {
  messages: ChatMessage[];
  /** Tokens of `messages`. */
  tokens: number;
  /** Tokens of the whole dynamic context before any cut (for `input_tokens`). */
  inputTokens: number;
  reductions: ReductionRecord[];
}

/**
 * Places the dynamic context (task goal, retrieved knowledge) after the system prompt while leaving
 * room for the current turn: it may take the room less the newest user message (at most half the
 * room is held back for it). Too long: its head is kept with a marker; no useful room: left out.
 * Both are reported as reductions at the end of the history (`from = to = historyLength`).
 */
export function fitDynamicContext(
  ragContext: string | undefined,
  room: number,
  newestUserTokens: number,
  historyLength: number,
  counter: ITokenCounter,
  message: (content: string) => ChatMessage,
): FittedDynamicContext {
  if (ragContext === undefined || ragContext.length === 0)
    return { messages: [], tokens: 0, inputTokens: 0, reductions: [] };
  const whole = message(ragContext);
  const limit = room - Math.min(newestUserTokens, Math.floor(room / 2));
  const overhead = counter.countMessage({ role: 'system', content: '' });
  const fits = counter.countUpTo(ragContext, limit) + overhead <= limit;
  const inputTokens = counter.countMessage(whole);
  if (fits) return { messages: [whole], tokens: inputTokens, inputTokens, reductions: [] };
  const at = historyLength;
  if (limit > 16) {
    const cut: ChatMessage = {
      role: 'system',
      content: truncateToFit(ragContext, { kind: 'head', maxTokens: limit - overhead, counter }).text,
    };
    const tokens = counter.countMessage(cut);
    return {
      messages: [cut],
      tokens,
      inputTokens,
      reductions: [
        {
          action: 'truncated',
          from: at,
          to: at,
          messages: 0,
          tokensBefore: inputTokens,
          tokensAfter: tokens,
          reason: 'RAG context (dynamic block) truncated to leave room for the current turn',
          recoverableFrom: 'history',
          cause: 'dynamic-context',
        },
      ],
    };
  }
  return {
    messages: [],
    tokens: 0,
    inputTokens,
    reductions: [
      {
        action: 'dropped',
        from: at,
        to: at,
        messages: 0,
        tokensBefore: inputTokens,
        tokensAfter: 0,
        reason: 'RAG context (dynamic block) left out: no room beside the current turn',
        recoverableFrom: 'history',
        cause: 'dynamic-context',
      },
    ],
  };
}
