import type { ChatMessage } from '../contracts/chat-message';
import type { ToolDefinition } from '../contracts/tool-definition';
import { BoundedCountCache } from './bounded-count-cache';
import type { BpeEncoder } from './bpe-encoder';
import { cachedMessageTokens } from './cached-message-tokens';
import { contentDigest } from './content-digest';
import type { ResolvedEncoding } from './model-encodings';
import { RecentTextCounts, TEXT_KEY_MAX_CHARS } from './recent-text-counts';
import { forEachTextPart, MAX_PIECE_CHARS, SEGMENT_CHARS } from './text-parts';
import type { ITokenCounter, TokenCounterMeta } from './token-counter';

/**
 * Caches shared by every counter of one (backend, encoding): counts cached for one agent serve
 * every agent. Messages are cached by identity (WeakMap), short texts by themselves (bounded by the
 * characters held) and long texts by content digest (bounded LRU holding no copies of content), so
 * callers that rebuild their history from JSON each turn still hit.
 */
export class SharedCountCaches {
  readonly byMessage = new WeakMap<object, number>();
  readonly byTools = new WeakMap<object, number>();
  readonly byDigest: BoundedCountCache;
  readonly byText = new RecentTextCounts();
  /** How many texts were actually tokenized (for tests and the bench). */
  tokenizedTexts = 0;
  /** How many characters were actually tokenized. */
  tokenizedChars = 0;

  constructor(capacity?: number) {
    this.byDigest = new BoundedCountCache(capacity);
  }
}

/**
 * An exact BPE counter (gpt-tokenizer or js-tiktoken) behind {@link ITokenCounter}.
 *
 * - Special-token strings such as `<|endoftext|>` count as plain text; counting never throws.
 * - Linear in the input: a run of more than {@link MAX_PIECE_CHARS} characters without a piece break
 *   (1 MiB of one letter, unpunctuated kana, base64 of zeros) is cut into chunks before BPE. The
 *   count is then an upper bound of the exact count (never lower); texts without such runs count
 *   exactly. One token is added per cut, since BPE may give one token fewer per cut than whole.
 * - `countUpTo` stops as soon as the limit is passed, encoding segments cut at piece boundaries.
 * - A message count is `tokens(messageText) + 4` plus image tokens by the provider rule, cached by
 *   message identity and by content digest. Messages are treated as immutable once counted.
 */
export class BpeTokenCounter implements ITokenCounter {
  constructor(
    private readonly encoder: BpeEncoder,
    private readonly caches: SharedCountCaches,
    private readonly model: string,
    private readonly resolved: ResolvedEncoding,
  ) {}

  meta(): TokenCounterMeta {
    const meta: TokenCounterMeta = {
      model: this.model,
      encoding: this.encoder.encoding,
      uses_tiktoken: true,
      strategy: 'tiktoken',
      backend: this.encoder.backend,
      approximate: this.resolved.approximate,
    };
    if (this.resolved.note !== undefined) meta.note = this.resolved.note;
    return meta;
  }

  count(text: string): number {
    if (text.length === 0) return 0;
    if (text.length <= TEXT_KEY_MAX_CHARS) {
      const known = this.caches.byText.get(text);
      if (known !== undefined) return known;
      const tokens = this.tokenize(text, Infinity);
      this.caches.byText.set(text, tokens);
      return tokens;
    }
    const key = contentDigest(text);
    const cached = this.caches.byDigest.get(key);
    if (cached !== undefined) return cached;
    const tokens = this.tokenize(text, Infinity);
    this.caches.byDigest.set(key, tokens);
    return tokens;
  }

  countUpTo(text: string, limit: number): number {
    if (text.length === 0) return 0;
    return this.tokenize(text, limit);
  }

  countMessage(message: Readonly<ChatMessage>): number {
    return cachedMessageTokens(this.caches.byMessage, message, (text) => this.count(text));
  }

  countMessages(messages: ReadonlyArray<Readonly<ChatMessage>>): number {
    return messages.reduce((total, message) => total + this.countMessage(message), 0);
  }

  countTools(tools: ReadonlyArray<Readonly<ToolDefinition>>): number {
    if (tools.length === 0) return 0;
    const cached = this.caches.byTools.get(tools);
    if (cached !== undefined) return cached;
    const tokens = this.count(JSON.stringify(tools));
    this.caches.byTools.set(tools, tokens);
    return tokens;
  }

  /** Cache statistics: how many texts and characters were really tokenized. */
  tokenizedTotals(): { texts: number; chars: number } {
    return { texts: this.caches.tokenizedTexts, chars: this.caches.tokenizedChars };
  }

  private tokenize(text: string, limit: number): number {
    this.caches.tokenizedTexts++;
    if (text.length <= MAX_PIECE_CHARS) {
      this.caches.tokenizedChars += text.length;
      return this.encoder.encodeLength(text);
    }
    let total = 0;
    const { cuts } = forEachTextPart(
      text,
      (part) => {
        this.caches.tokenizedChars += part.length;
        total += this.encoder.encodeLength(part);
        return total <= limit;
      },
      { segmentChars: SEGMENT_CHARS, maxPieceChars: MAX_PIECE_CHARS, chunkChars: this.encoder.chunkChars },
    );
    // One token per cut inside a long run keeps the split count an upper bound (see forEachTextPart).
    return total + cuts;
  }
}
