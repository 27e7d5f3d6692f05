import type { ChatMessage } from '../contracts/chat-message';
import type { ToolDefinition } from '../contracts/tool-definition';
import { cachedMessageTokens } from './cached-message-tokens';
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
    return {
      model: this.model,
      encoding: null,
      uses_tiktoken: false,
      strategy: 'heuristic',
      backend: 'heuristic',
      approximate: true,
      note: 'no tokenizer: floor(chars / 4) + 1 per text, an estimate',
    };
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
    return cachedMessageTokens(this.cache, message, (text) => this.count(text));
  }

  countMessages(messages: ReadonlyArray<Readonly<ChatMessage>>): number {
    return messages.reduce((total, message) => total + this.countMessage(message), 0);
  }

  countTools(tools: ReadonlyArray<Readonly<ToolDefinition>>): number {
    return tools.length === 0 ? 0 : this.count(JSON.stringify(tools));
  }
}
