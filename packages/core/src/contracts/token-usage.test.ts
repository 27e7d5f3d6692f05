import { createTokenUsage, toTokenUsage } from './token-usage';

describe('toTokenUsage', () => {
  it('moves OpenAI chat cache reads and writes out of prompt_tokens', () => {
    const usage = toTokenUsage({
      prompt_tokens: 5200,
      completion_tokens: 61,
      total_tokens: 5261,
      prompt_tokens_details: { cached_tokens: 4096, cache_write_tokens: 1000 },
    });
    expect(usage).toEqual({
      input_tokens: 104,
      cache_read_tokens: 4096,
      cache_creation_tokens: 1000,
      output_tokens: 61,
      total_tokens: 5261,
    });
  });

  it('moves Responses API cache reads and writes out of input_tokens', () => {
    const usage = toTokenUsage({
      input_tokens: 3000,
      output_tokens: 20,
      input_tokens_details: { cached_tokens: 2048, cache_write_tokens: 900 },
    });
    expect(usage).toEqual({
      input_tokens: 52,
      cache_read_tokens: 2048,
      cache_creation_tokens: 900,
      output_tokens: 20,
      total_tokens: 3020,
    });
  });

  it('adds Anthropic cache reads and writes to input_tokens, with the one-hour part of the writes', () => {
    const usage = toTokenUsage({
      input_tokens: 12,
      output_tokens: 40,
      cache_read_input_tokens: 2048,
      cache_creation_input_tokens: 1500,
      cache_creation: { ephemeral_5m_input_tokens: 300, ephemeral_1h_input_tokens: 1200 },
    });
    expect(usage).toEqual({
      input_tokens: 12,
      output_tokens: 40,
      cache_read_tokens: 2048,
      cache_creation_tokens: 1500,
      cache_creation_1h_tokens: 1200,
      total_tokens: 3600,
    });
    expect(toTokenUsage({ input_tokens: 12, output_tokens: 4, cache_creation_input_tokens: 10 })).not.toHaveProperty(
      'cache_creation_1h_tokens',
    );
  });
});

describe('createTokenUsage', () => {
  it('keeps the one-hour writes within the writes', () => {
    expect(
      createTokenUsage({ cache_creation_tokens: 100, cache_creation_1h_tokens: 250 }).cache_creation_1h_tokens,
    ).toBe(100);
    expect(createTokenUsage({ cache_creation_tokens: 100 })).not.toHaveProperty('cache_creation_1h_tokens');
  });
});
