import { toCacheMissReport } from './provider-cache-miss';

describe('toCacheMissReport', () => {
  it("reads Anthropic's diagnostics.cache_miss_reason", () => {
    expect(
      toCacheMissReport({
        id: 'msg_2',
        diagnostics: { cache_miss_reason: { type: 'tools_changed', cache_missed_input_tokens: 5120 } },
      }),
    ).toEqual({ reason: 'tools_changed', missedTokens: 5120 });
    expect(toCacheMissReport({ diagnostics: { cache_miss_reason: { type: 'previous_message_not_found' } } })).toEqual({
      reason: 'previous_message_not_found',
    });
    // null: the diagnosis was still pending when the answer was written
    expect(toCacheMissReport({ diagnostics: { cache_miss_reason: null } })).toBeUndefined();
  });

  it("reads the Responses API's prompt_cache_diagnostics of a miss, and nothing of a hit", () => {
    expect(
      toCacheMissReport({
        id: 'resp_2',
        prompt_cache_diagnostics: {
          type: 'cache_miss',
          reason: 'input_changed',
          cache_missed_tokens: 900,
          comparison_reusable_tokens: 4000,
        },
      }),
    ).toEqual({ reason: 'input_changed', missedTokens: 900 });
    expect(toCacheMissReport({ prompt_cache_diagnostics: { type: 'cache_hit' } })).toBeUndefined();
    expect(toCacheMissReport({ prompt_cache_diagnostics: { type: 'comparison_response_not_found' } })).toBeUndefined();
  });

  it('finds nothing in other shapes', () => {
    for (const answer of [
      undefined,
      null,
      'text',
      42,
      {},
      { diagnostics: 'x' },
      { diagnostics: { cache_miss_reason: { type: 7 } } },
    ])
      expect(toCacheMissReport(answer)).toBeUndefined();
  });
});
