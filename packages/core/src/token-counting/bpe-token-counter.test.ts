import fc from 'fast-check';

import type { ChatMessage } from '../contracts/chat-message';
import { loadConversations } from '../testing/load-conversations';
import { BoundedCountCache } from './bounded-count-cache';
import { GptTokenizerEncoder, JsTiktokenEncoder } from './bpe-encoder';
import { BpeTokenCounter, SharedCountCaches } from './bpe-token-counter';
import { contentDigest } from './content-digest';
import { createTokenCounter } from './create-token-counter';
import { messageText } from './message-text';
import { RecentTextCounts, TEXT_KEY_MAX_CHARS } from './recent-text-counts';
import { forEachTextPart, MAX_PIECE_CHARS, utf8ByteLength } from './text-parts';

const JAPANESE = 'こんにちは、世界。東京から大阪までの新幹線は約二時間半です。予約番号はＡＢＣ１２３です。';
const EMOJI = 'Deploy done 🎉🚀 — family: 👨‍👩‍👧‍👦, flags: 🇯🇵🇫🇷, skin tone: 👍🏽, ZWJ: 🧑‍💻';

function freshCounter(
  backend: 'gpt-tokenizer' | 'js-tiktoken',
  encoding: 'o200k_base' | 'cl100k_base' = 'o200k_base',
): BpeTokenCounter {
  const encoder = backend === 'gpt-tokenizer' ? new GptTokenizerEncoder(encoding) : new JsTiktokenEncoder(encoding);
  return new BpeTokenCounter(encoder, new SharedCountCaches(), 'gpt-4o', { encoding, approximate: false });
}

const realTexts: string[] = (() => {
  const texts: string[] = [];
  for (const name of ['tau-bench-airline', 'openhands-multi-swe-bench'] as const) {
    for (const record of loadConversations(name)) {
      for (const message of record.messages) texts.push(messageText(message as ChatMessage));
    }
  }
  return texts;
})();

describe('BpeTokenCounter', () => {
  describe('#count', () => {
    it('gives identical counts with gpt-tokenizer and js-tiktoken on the real conversations (o200k_base)', () => {
      const fast = freshCounter('gpt-tokenizer');
      const reference = freshCounter('js-tiktoken');
      const mismatches = realTexts.filter((text) => fast.count(text) !== reference.count(text));
      expect(realTexts.length).toBeGreaterThan(5000);
      expect(mismatches).toEqual([]);
    });

    it.each(['o200k_base', 'cl100k_base'] as const)(
      'gives identical counts with both backends on Japanese and emoji text (%s)',
      (encoding) => {
        const fast = freshCounter('gpt-tokenizer', encoding);
        const reference = freshCounter('js-tiktoken', encoding);
        for (const text of [JAPANESE, EMOJI, JAPANESE.repeat(40), `${EMOJI}\n${JAPANESE}`]) {
          expect(fast.count(text)).toBe(reference.count(text));
        }
        expect(fast.count(JAPANESE)).toBeGreaterThan(JAPANESE.length / 3);
      },
    );

    it('counts real texts exactly as a whole-text encode does when no long run is cut', () => {
      const encoder = new GptTokenizerEncoder('o200k_base');
      const counter = freshCounter('gpt-tokenizer');
      let compared = 0;
      for (const text of realTexts) {
        if (forEachTextPart(text, () => true).split) continue;
        compared++;
        expect(counter.count(text)).toBe(encoder.encodeLength(text));
      }
      expect(compared).toBeGreaterThan(5000);
    });

    it('never throws on special-token strings and counts them as text', () => {
      for (const backend of ['gpt-tokenizer', 'js-tiktoken'] as const) {
        const counter = freshCounter(backend);
        const text = 'before <|endoftext|> middle <|im_start|>user<|im_end|> <|fim_prefix|> after';
        expect(() => counter.count(text)).not.toThrow();
        expect(counter.count('<|endoftext|>')).toBeGreaterThan(1);
        expect(counter.countMessage({ role: 'user', content: text })).toBe(counter.count(text) + 4);
      }
    });

    it.each([
      ['one letter repeated (1 MiB)', 'a'.repeat(1 << 20)],
      ['unpunctuated kana (256 KiB characters)', 'あいうえおかきくけこ'.repeat(1 << 15).slice(0, 1 << 18)],
      ['base64 of zeros (1 MiB)', Buffer.alloc(786_432).toString('base64')],
      ['spaces only (512 KiB)', ' '.repeat(1 << 19)],
      ['punctuation only (512 KiB)', '=-'.repeat(1 << 18)],
    ])('encodes a pathological single piece in chunks of at most MAX_PIECE_CHARS: %s', (_name, text) => {
      const counter = freshCounter('gpt-tokenizer');
      const parts: number[] = [];
      const { split } = forEachTextPart(text, (part) => {
        parts.push(part.length);
        return true;
      });
      expect(split).toBe(true);
      expect(Math.max(...parts)).toBeLessThanOrEqual(MAX_PIECE_CHARS);
      const tokens = counter.count(text);
      expect(tokens).toBeGreaterThan(0);
      expect(tokens).toBeLessThanOrEqual(utf8ByteLength(text));
    });

    it('never undercounts when long pieces are split, and is exact where nothing is split (property)', () => {
      const encoder = new GptTokenizerEncoder('o200k_base');
      const alphabet = fc.constantFrom(
        'a',
        'b',
        'Z',
        'x',
        ' ',
        '\n',
        '.',
        '=',
        '1',
        '9',
        'あ',
        'か',
        '。',
        '漢',
        '🎉',
        '\t',
        "'",
        '/',
        'é',
      );
      fc.assert(
        fc.property(
          fc.array(alphabet, { maxLength: 120 }),
          fc.integer({ min: 2, max: 12 }),
          fc.integer({ min: 4, max: 40 }),
          fc.integer({ min: 2, max: 12 }),
          (chars, maxPieceChars, segmentChars, chunkChars) => {
            const text = chars.join('');
            let sum = 0;
            const { split, cuts } = forEachTextPart(
              text,
              (part) => {
                sum += encoder.encodeLength(part);
                return true;
              },
              { maxPieceChars, segmentChars, chunkChars },
            );
            const exact = encoder.encodeLength(text);
            if (split) return sum + cuts >= exact && sum + cuts <= exact + 2 * cuts + 2 * Math.ceil(text.length / 2);
            return sum === exact;
          },
        ),
        { numRuns: 2000 },
      );
    });
  });

  describe('#countUpTo', () => {
    it('returns the exact count when it is within the limit', () => {
      const counter = freshCounter('gpt-tokenizer');
      const text = realTexts.find((candidate) => candidate.length > 20_000) ?? JAPANESE.repeat(500);
      expect(counter.countUpTo(text, 1e9)).toBe(counter.count(text));
    });

    it('stops early once the limit is passed, tokenizing only a little of a huge text', () => {
      const counter = freshCounter('gpt-tokenizer');
      const line = 'INFO 2024-05-01 worker-7 processed request id=42 in 13 ms status=ok\n';
      const text = line.repeat(80_000);
      const before = counter.tokenizedTotals().chars;
      const result = counter.countUpTo(text, 100);
      expect(result).toBeGreaterThan(100);
      expect(counter.tokenizedTotals().chars - before).toBeLessThan(20_000);
    });
  });

  describe('#countMessage', () => {
    it('counts content plus tool-call names and arguments plus 4', () => {
      const counter = freshCounter('gpt-tokenizer');
      const message: ChatMessage = {
        role: 'assistant',
        content: null,
        tool_calls: [
          {
            id: 'c1',
            type: 'function',
            function: { name: 'get_user_details', arguments: '{"user_id":"mia_li_3668"}' },
          },
        ],
      };
      expect(counter.countMessage(message)).toBe(counter.count('\nget_user_details\n{"user_id":"mia_li_3668"}') + 4);
    });

    it('costs nothing for a message seen before, by identity or by content (a history rebuilt from JSON)', () => {
      const counter = freshCounter('gpt-tokenizer');
      const history = realTexts.slice(0, 200).map((text): ChatMessage => ({ role: 'user', content: text }));
      const first = counter.countMessages(history);
      const afterFirst = counter.tokenizedTotals().texts;
      expect(counter.countMessages(history)).toBe(first);
      const rebuilt = JSON.parse(JSON.stringify(history)) as ChatMessage[];
      expect(counter.countMessages(rebuilt)).toBe(first);
      expect(counter.tokenizedTotals().texts).toBe(afterFirst);
    });

    it('counts an image part by the provider rule, not as base64 text', () => {
      const counter = freshCounter('gpt-tokenizer');
      const url = `data:image/png;base64,${Buffer.alloc(30_000).toString('base64')}`;
      const message: ChatMessage = {
        role: 'user',
        content: [
          { type: 'text', text: 'what is this?' },
          { type: 'image_url', image_url: { url, detail: 'low' } },
        ],
      };
      expect(counter.countMessage(message)).toBe(counter.count('what is this?') + 4 + 85);
    });
  });

  describe('#countTools', () => {
    it('counts tool definitions as the tokens of their JSON text', () => {
      const counter = createTokenCounter({ model: 'gpt-4o' });
      const tools = [
        {
          type: 'function' as const,
          function: { name: 'search', description: 'Search flights', parameters: { type: 'object', properties: {} } },
        },
      ];
      expect(counter.countTools(tools)).toBe(counter.count(JSON.stringify(tools)));
      expect(counter.countTools([])).toBe(0);
    });
  });
});

describe('BoundedCountCache', () => {
  it('evicts the least recently used entry beyond its capacity', () => {
    const cache = new BoundedCountCache(2);
    cache.set('a', 1);
    cache.set('b', 2);
    expect(cache.get('a')).toBe(1);
    cache.set('c', 3);
    expect(cache.get('b')).toBeUndefined();
    expect(cache.get('a')).toBe(1);
    expect(cache.size).toBe(2);
  });
});

describe('contentDigest', () => {
  it('differs for texts that differ in one character and holds no copy of the content', () => {
    for (const length of [100, 10_000]) {
      const text = 'x'.repeat(length);
      const digest = contentDigest(text);
      expect(digest).not.toBe(contentDigest(`${text.slice(0, -1)}y`));
      expect(digest).toBe(contentDigest('x'.repeat(length)));
      expect(digest.length).toBeLessThan(40);
    }
  });

  it('tells apart long texts that differ only in a lone surrogate', () => {
    const base = 'a'.repeat(5_000);
    expect(contentDigest(`${base}\ud800`)).not.toBe(contentDigest(`${base}\udc00`));
    expect(contentDigest(`${base}\ud800`)).not.toBe(contentDigest(`${base}\ufffd`));
  });
});

describe('RecentTextCounts', () => {
  it('keeps short texts up to its character bound, oldest out first, and ignores long texts', () => {
    const counts = new RecentTextCounts(TEXT_KEY_MAX_CHARS * 2);
    const a = 'a'.repeat(TEXT_KEY_MAX_CHARS);
    const b = 'b'.repeat(TEXT_KEY_MAX_CHARS);
    counts.set(a, 1);
    counts.set(b, 2);
    expect([counts.get(a), counts.get(b), counts.heldChars]).toEqual([1, 2, TEXT_KEY_MAX_CHARS * 2]);
    counts.set('c', 3);
    expect([counts.get(a), counts.get(b), counts.get('c')]).toEqual([undefined, 2, 3]);
    counts.set('x'.repeat(TEXT_KEY_MAX_CHARS + 1), 9);
    expect(counts.size).toBe(2);
  });

  it('lets a counter count a text rebuilt from JSON without tokenizing it again', () => {
    const counter = freshCounter('js-tiktoken');
    const caches = (counter as unknown as { caches: SharedCountCaches }).caches;
    const text = `${JAPANESE} ${EMOJI}`;
    const first = counter.count(text);
    const before = caches.tokenizedTexts;
    expect(counter.count(JSON.parse(JSON.stringify(text)) as string)).toBe(first);
    expect(caches.tokenizedTexts).toBe(before);
  });
});
