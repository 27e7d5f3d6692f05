import type { ChatMessage } from '../contracts/chat-message';
import { ModelRegistry } from '../models/default-model-registry';
import { BpeTokenCounter } from './bpe-token-counter';
import { createTokenCounter, DEFAULT_TOKENIZER_BACKEND } from './create-token-counter';
import { HeuristicTokenCounter } from './heuristic-counter';

describe('createTokenCounter', () => {
  describe('#meta', () => {
    it.each([
      ['gpt-4o', 'o200k_base', false],
      ['gpt-4o-2024-08-06', 'o200k_base', false],
      ['gpt-4.1-mini', 'o200k_base', false],
      ['o3-mini', 'o200k_base', false],
      ['gpt-5', 'o200k_base', false],
      ['gpt-4', 'cl100k_base', false],
      ['gpt-3.5-turbo', 'cl100k_base', false],
      ['claude-3-5-sonnet-20241022', 'o200k_base', true],
      ['gemini-1.5-flash', 'o200k_base', true],
      ['llama3.1:8b', 'o200k_base', true],
      ['my-own-model', 'o200k_base', true],
    ])('resolves %s to %s (approximate: %s)', (model, encoding, approximate) => {
      const meta = createTokenCounter({ model }).meta();
      expect(meta).toMatchObject({ model, encoding, uses_tiktoken: true, strategy: 'tiktoken', approximate });
    });

    it('has the meta() shape with the backend named', () => {
      const meta = createTokenCounter({ model: 'gpt-4o', backend: 'js-tiktoken' }).meta();
      expect(meta).toEqual({
        model: 'gpt-4o',
        encoding: 'o200k_base',
        uses_tiktoken: true,
        strategy: 'tiktoken',
        backend: 'js-tiktoken',
        approximate: false,
      });
    });

    it('states the reason when counts are approximate', () => {
      expect(createTokenCounter({ model: 'no-such-model' }).meta().note).toMatch(/unknown model "no-such-model"/);
    });

    it('reports the heuristic fallback as such', () => {
      const meta = createTokenCounter({ model: 'gpt-4o', backend: 'heuristic' }).meta();
      expect(meta).toMatchObject({ encoding: null, uses_tiktoken: false, strategy: 'heuristic' });
    });

    it('uses the encoding a registry names for the model', () => {
      const registry = new ModelRegistry();
      registry.register({ id: 'legacy-chat', contextWindow: 8192, maxOutputTokens: 1024, encoding: 'cl100k_base' });
      expect(createTokenCounter({ model: 'legacy-chat', registry }).meta()).toMatchObject({
        encoding: 'cl100k_base',
        approximate: false,
      });
    });
  });

  it('picks gpt-tokenizer for auto', () => {
    expect(DEFAULT_TOKENIZER_BACKEND).toBe('gpt-tokenizer');
    expect(createTokenCounter({ model: 'gpt-4o' }).meta().backend).toBe('gpt-tokenizer');
  });

  it('returns one shared counter per backend and model', () => {
    expect(createTokenCounter({ model: 'gpt-4o' })).toBe(
      createTokenCounter({ model: 'gpt-4o', backend: 'gpt-tokenizer' }),
    );
    expect(createTokenCounter({ model: 'gpt-4o', backend: 'heuristic' })).toBeInstanceOf(HeuristicTokenCounter);
    expect(createTokenCounter({ model: 'gpt-4o' })).toBeInstanceOf(BpeTokenCounter);
  });

  it('shares cached message counts between models of one encoding', () => {
    const a = createTokenCounter({ model: 'gpt-4o' }) as BpeTokenCounter;
    const b = createTokenCounter({ model: 'gpt-4.1' }) as BpeTokenCounter;
    const message: ChatMessage = {
      role: 'user',
      content: 'a message that both agents count, long enough to be digested',
    };
    const count = a.countMessage(message);
    const before = b.tokenizedTotals().texts;
    expect(b.countMessage({ ...message })).toBe(count);
    expect(b.tokenizedTotals().texts).toBe(before);
  });

  it('throws a RangeError for an unknown backend name', () => {
    expect(() => createTokenCounter({ model: 'gpt-4o', backend: 'nope' as never })).toThrow(RangeError);
  });
});
