import type { ChatMessage } from '../contracts/chat-message';
import type { ToolDefinition } from '../contracts/tool-definition';
import { messageTokens } from './message-tokens';
import type { ITokenCounter, TokenCounterMeta } from './token-counter';

/**
 * The fallback when no tokenizer is available: `floor(chars / 4) + 1` per text, plus 4
 * per message. Characters outside Latin script (CJK, kana, emoji) count one token each, because the
 * chars/4 rule under-counts Japanese about fourfold. An estimate only: it never decides alone
 * what fits.
 */
export class HeuristicTokenCounter implements ITokenCounter {
  private readonly cache = new WeakMap<object, number>();

  constructor(private readonly model: string) {}

  meta(): TokenCounterMeta {
    return { model: this.model, encoding: null, uses_tiktoken: false, strategy: 'heuristic', backend: 'heuristic', approximate: true, note: 'no tokenizer: floor(chars / 4) + 1 per text, an estimate' };
  }

  count(text: string): number {
    let wide = 0;
    let narrow = 0;
    for (let i = 0; i < text.length; i++) {
      const code = text.charCodeAt(i);
      if (code >= 0xd800 && code <= 0xdbff) {
        wide++;
        i++;
      } else if (code >= 0x2e80) wide++;
      else narrow++;
    }
    return Math.floor(narrow / 4) + wide + 1;
  }

  countUpTo(text: string, _limit: number): number {
    return this.count(text);
  }

  countMessage(message: Readonly<ChatMessage>): number {
    const cached = this.cache.get(message);
    if (cached !== undefined) return cached;
    const tokens = messageTokens(message, (text) => this.count(text));
    this.cache.set(message, tokens);
    return tokens;
  }

  countMessages(messages: ReadonlyArray<Readonly<ChatMessage>>): number {
    let total = 0;
    for (const message of messages) total += this.countMessage(message);
    return total;
  }

  countTools(tools: ReadonlyArray<Readonly<ToolDefinition>>): number {
    return tools.length === 0 ? 0 : this.count(JSON.stringify(tools));
  }
}
