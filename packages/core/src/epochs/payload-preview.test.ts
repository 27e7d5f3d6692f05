import fc from 'fast-check';

import { testComposer } from '../__fixtures__/test-composer';
import { computeBudget } from '../budget/compute-budget';
import { PayloadComposer } from '../composer/payload-composer';
import type { ChatMessage } from '../contracts/chat-message';
import type { LLMPayload } from '../contracts/llm-payload';
import { CtxkitEventBus } from '../events/event-bus';
import { arbHistory } from '../testing/arbitraries';
import { createTokenCounter } from '../token-counting/create-token-counter';
import { payloadPreview } from './payload-preview';
import { previewItem } from './preview-item';

const counter = createTokenCounter({ model: 'gpt-4o' });

function composer(maxContextTokens: number): PayloadComposer {
  return testComposer(maxContextTokens, counter);
}

function turns(count: number): ChatMessage[] {
  const history: ChatMessage[] = [];
  for (let n = 0; n < count; n++) {
    history.push({ role: 'user', content: `Question ${n}: ${'what about the weather in Lisbon '.repeat(6)}` });
    history.push({ role: 'assistant', content: `Answer ${n}: ${'it is sunny along the coast '.repeat(6)}` });
  }
  return history;
}

/**
 * Indexes of the history messages the payload does not carry (by identity: the composer sends kept messages as they
 * are).
 */
function absent(payload: LLMPayload, history: ChatMessage[]): number[] {
  const sent = new Set<unknown>(payload.messages);
  return history.flatMap((message, index) => (sent.has(message) ? [] : [index]));
}

describe('payloadPreview', () => {
  it('names every history message the payload leaves out, whether dropped or standing in a memory block', () => {
    const history = turns(20);
    const { payload } = composer(900).compose({
      systemPrompt: 'sys',
      history,
      tools: [],
      turn: 20,
      memory: [
        {
          name: 'summary',
          content: 'The user asked about Lisbon.',
          placement: 'after-system',
          covers: { until: 6, action: 'summarized', recoverableFrom: 'summary', reason: 'folded into the summary' },
        },
      ],
    });
    const preview = payloadPreview(payload, history, counter);
    expect(preview.dropped.length).toBeGreaterThan(6);
    expect(preview.dropped.map((item) => item.index)).toEqual(absent(payload, history));
    expect(preview.trimmed).toEqual([]);
    expect(preview.folded).toEqual([]);
    expect(preview.compacted).toEqual([]);
    expect(preview.payloadTokens).toBe(payload.stats.output_tokens);
    expect(preview.notes[0]).toBe(
      'messages 0–5 left out (summarized, recoverable from the summary): folded into the summary',
    );
    expect(preview.notes[1]).toMatch(
      /^messages 6–\d+ left out \(dropped, recoverable from the history\): older than the window/,
    );
    expect(preview.notes[preview.notes.length - 1]).toBe(
      `the payload would take ${payload.stats.output_tokens} of ${payload.stats.budget.available} available tokens`,
    );
    expect(preview.dropped[0]).toEqual({
      index: 0,
      role: 'user',
      tokens: counter.countMessage(history[0]!),
      excerpt: expect.stringMatching(/^Question 0: what about the weather in Lisbon .{30,}…$/),
    });
  });

  it('names a tool output sent cut as trimmed, not as left out', () => {
    const history: ChatMessage[] = [
      { role: 'user', content: 'Read the log.' },
      {
        role: 'assistant',
        content: null,
        tool_calls: [{ id: 'c1', type: 'function', function: { name: 'read_file', arguments: '{"path":"app.log"}' } }],
      },
      { role: 'tool', tool_call_id: 'c1', content: 'line of the log\n'.repeat(2000) },
    ];
    const { payload } = composer(600).compose({ systemPrompt: 'sys', history, tools: [], turn: 1 });
    const preview = payloadPreview(payload, history, counter);
    expect(preview.dropped).toEqual([]);
    expect(preview.trimmed.map((item) => [item.index, item.role])).toEqual([[2, 'tool']]);
    expect(preview.notes[0]).toMatch(/^message 2 truncated: /);
  });

  it('matches the messages a payload leaves out on any generated history', () => {
    fc.assert(
      fc.property(arbHistory(), fc.integer({ min: 400, max: 4000 }), (history, budget) => {
        let payload: LLMPayload;
        try {
          payload = composer(budget).compose({ systemPrompt: 'sys', history, tools: [], turn: 1 }).payload;
        } catch {
          return; // over budget: no payload to preview
        }
        const preview = payloadPreview(payload, history, counter);
        const cut = new Set(preview.trimmed.map((item) => item.index));
        // Left out: absent from the payload and not sent as a cut copy.
        expect(preview.dropped.map((item) => item.index)).toEqual(
          absent(payload, history).filter((index) => !cut.has(index)),
        );
      }),
      { numRuns: 40, seed: 20250101 },
    );
  });

  it('reads a sparse record by the messages the payload does not carry', () => {
    const history = turns(3);
    const payload: LLMPayload = {
      messages: [history[0]!, history[2]!, history[4]!, history[5]!],
      tools: [],
      stats: {
        reductions: [
          {
            action: 'trimmed',
            from: 1,
            to: 4,
            messages: 2,
            reason: 'shown as a placeholder',
            recoverableFrom: 'tool-output-cache',
          },
        ],
        output_tokens: 10,
        budget: { available: 100 },
      } as unknown as LLMPayload['stats'],
    };
    expect(payloadPreview(payload, history, counter).trimmed.map((item) => item.index)).toEqual([1, 3]);
  });
});

describe('previewItem', () => {
  it(
    'shortens to 80 characters without splitting a character, and shows the calls of an assistant message without ' +
      'text',
    () => {
      const history: ChatMessage[] = [
        { role: 'user', content: `${'🌍'.repeat(100)}` },
        {
          role: 'assistant',
          content: null,
          tool_calls: [{ id: 'c1', type: 'function', function: { name: 'lookup', arguments: '{"id":7}' } }],
        },
        { role: 'user', content: [{ type: 'text', text: '  several\n\nlines   here ' }] },
      ];
      const emoji = previewItem(history, 0, counter).excerpt;
      expect(Array.from(emoji)).toHaveLength(80);
      expect(emoji.endsWith('🌍…')).toBe(true);
      expect(previewItem(history, 1, counter)).toMatchObject({ role: 'assistant', excerpt: 'calls lookup({"id":7})' });
      expect(previewItem(history, 2, counter).excerpt).toBe('several lines here');
    },
  );
});
