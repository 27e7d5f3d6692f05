import type { ReductionPreview } from '@ctxkit/core';

import { renderReductionPreview } from './reduction-preview-text';

const empty: ReductionPreview = { dropped: [], folded: [], compacted: [], trimmed: [], payloadTokens: 1234, notes: [] };

describe('renderReductionPreview', () => {
  it('says when nothing would be reduced', () => {
    expect(renderReductionPreview(empty, 3)).toBe('preview of call 3: 1,234 tokens\n  nothing to reduce\n');
  });

  it('shows consecutive messages as one range with their tokens, single ones with their excerpt', () => {
    const text = renderReductionPreview(
      {
        ...empty,
        dropped: [2, 0, 1].map((index) => ({ index, role: 'user' as const, tokens: 100, excerpt: `m${index}` })),
        folded: [],
        trimmed: [{ index: 7, role: 'tool', tokens: 3100, excerpt: 'PASS src/a.test.ts' }],
        notes: ['the next fold would fold turns 1–3'],
      },
      9,
    );
    expect(text).toBe(
      [
        'preview of call 9: 1,234 tokens',
        '  - leaves out #0–#2 (3 messages, 300 tokens)',
        '  ✂ trims      #7 tool (3,100 tokens) "PASS src/a.test.ts"',
        '  · the next fold would fold turns 1–3',
        '',
      ].join('\n'),
    );
  });
});
