import type { ChatMessage } from '../contracts/chat-message';
import { findPayloadProblems } from '../messages/find-payload-problems';
import { loadConversations } from '../testing/load-conversations';
import { createTokenCounter } from '../token-counting/create-token-counter';
import { HeuristicTokenCounter } from '../token-counting/heuristic-counter';
import { trimMessages } from './trim-messages';

const call = (id: string) => ({
  id,
  type: 'function' as const,
  function: { name: 'get_reservation_details', arguments: `{"reservation_id":"${id}"}` },
});

const conversation: ChatMessage[] = [
  { role: 'system', content: 'You are an airline agent.' },
  { role: 'user', content: 'I want to cancel my reservation.' },
  { role: 'assistant', content: null, tool_calls: [call('r1')] },
  { role: 'tool', tool_call_id: 'r1', content: 'x'.repeat(400) },
  { role: 'assistant', content: 'Your reservation can be cancelled. Confirm?' },
  { role: 'user', content: 'Yes, please.' },
];

describe('trimMessages', () => {
  const counter = createTokenCounter({ model: 'gpt-4o' });

  it('keeps the first system message and the newest messages that fit, in order', () => {
    const budget =
      counter.countMessage(conversation[0]!) +
      counter.countMessage(conversation[4]!) +
      counter.countMessage(conversation[5]!);
    const result = trimMessages(conversation, { maxContextTokens: budget, model: 'gpt-4o' });
    expect(result.messages).toEqual([conversation[0], conversation[4], conversation[5]]);
    expect(result.statistics.output_tokens).toBe(budget);
  });

  it('keeps or drops a tool-call group whole and never leaves a tool message without its call', () => {
    const all = counter.countMessages(conversation);
    const result = trimMessages(conversation, {
      maxContextTokens: all - counter.countMessage(conversation[1]!),
      model: 'gpt-4o',
    });
    expect(result.messages.map((message) => message.role)).toEqual([
      'system',
      'assistant',
      'tool',
      'assistant',
      'user',
    ]);
    const tight = trimMessages(conversation, {
      maxContextTokens: all - counter.countMessage(conversation[1]!) - 1,
      model: 'gpt-4o',
    });
    expect(tight.messages.map((message) => message.role)).toEqual(['system', 'assistant', 'user']);
    expect(findPayloadProblems(tight.messages)).toEqual([]);
  });

  it('leaves out orphan tool results and calls without results', () => {
    const history: ChatMessage[] = [
      { role: 'system', content: 'sys' },
      { role: 'tool', tool_call_id: 'stray', content: 'orphan' },
      { role: 'user', content: 'go' },
      { role: 'assistant', content: null, tool_calls: [call('f')] },
    ];
    const result = trimMessages(history, { maxContextTokens: 10_000, model: 'gpt-4o' });
    expect(result.messages.map((message) => message.role)).toEqual(['system', 'user']);
  });

  it('never mutates its input and returns copies', () => {
    const frozen = JSON.parse(JSON.stringify(conversation)) as ChatMessage[];
    const snapshot = JSON.stringify(frozen);
    Object.freeze(frozen);
    frozen.forEach((message) => Object.freeze(message));
    const result = trimMessages(frozen, { maxContextTokens: 50, model: 'gpt-4o' });
    expect(JSON.stringify(frozen)).toBe(snapshot);
    expect(result.messages[0]).not.toBe(frozen[0]);
    expect(result.messages[0]).toEqual(frozen[0]);
  });

  it('returns the documented shape with compress_ratio = output / input under both names', () => {
    const result = trimMessages(conversation, {
      maxContextTokens: 60,
      model: 'gpt-4o',
      semanticOptions: { note: 'kept' },
    });
    const { statistics } = result;
    expect(statistics.input_tokens).toBe(counter.countMessages(conversation));
    expect(statistics.compress_ratio).toBeCloseTo(statistics.output_tokens / statistics.input_tokens, 12);
    expect(statistics.compression_ratio).toBe(statistics.compress_ratio);
    expect(statistics).not.toHaveProperty('semantic_retention');
    expect(result.token_counter).toEqual(counter.meta());
    expect(result.semantic_options).toEqual({ note: 'kept' });
  });

  it('reports a ratio of 1.0 for an empty input', () => {
    const result = trimMessages([], { maxContextTokens: 100, model: 'gpt-4o' });
    expect(result.messages).toEqual([]);
    expect(result.statistics).toEqual({
      compress_ratio: 1.0,
      compression_ratio: 1.0,
      input_tokens: 0,
      output_tokens: 0,
    });
  });

  it('uses a given counter and reports its meta', () => {
    const heuristic = new HeuristicTokenCounter('local-8k');
    const result = trimMessages(conversation, { maxContextTokens: 1000, model: 'ignored', tokenCounter: heuristic });
    expect(result.token_counter).toMatchObject({ strategy: 'heuristic', uses_tiktoken: false, encoding: null });
  });

  describe('semantic_retention', () => {
    const bagOfLetters = (text: string): number[] => {
      const vector = new Array<number>(26).fill(0);
      for (const char of text.toLowerCase()) {
        const code = char.charCodeAt(0) - 97;
        if (code >= 0 && code < 26) vector[code]!++;
      }
      return vector;
    };

    it('is the cosine similarity of the embeddings before and after', () => {
      const result = trimMessages(conversation, {
        maxContextTokens: 10_000,
        model: 'gpt-4o',
        semanticOptions: { embedder: bagOfLetters },
      });
      expect(result.statistics.semantic_retention).toBeCloseTo(1.0, 10);
      const trimmed = trimMessages(conversation, {
        maxContextTokens: 40,
        model: 'gpt-4o',
        semanticOptions: { embedder: bagOfLetters },
      });
      expect(trimmed.statistics.semantic_retention).toBeGreaterThan(0);
      expect(trimmed.statistics.semantic_retention).toBeLessThan(1);
    });

    it.each([
      [
        'throws',
        () => {
          throw new Error('embedding service down');
        },
      ],
      ['returns no number sequence', () => 'not a vector'],
      ['returns a promise', async () => [1, 2, 3]],
      ['returns an empty vector', () => []],
    ])('is 0.0 when the embedder %s', (_name, embedder) => {
      const result = trimMessages(conversation, {
        maxContextTokens: 10_000,
        model: 'gpt-4o',
        semanticOptions: { embedder },
      });
      expect(result.statistics.semantic_retention).toBe(0.0);
    });
  });

  it('keeps every real tau-bench conversation valid at a small budget', () => {
    for (const record of loadConversations('tau-bench-airline').slice(0, 40)) {
      const result = trimMessages(record.messages as ChatMessage[], { maxContextTokens: 2500, model: 'gpt-4o' });
      expect(result.messages[0]?.role).toBe('system');
      const conversationPart = result.messages.slice(1);
      expect(
        findPayloadProblems(conversationPart).filter(
          (problem) => problem.problem !== 'no-user-message' && problem.problem !== 'leading-tool-message',
        ),
      ).toEqual([]);
      expect(
        conversationPart.some((message) => message.role === 'tool' && conversationPart.indexOf(message) === 0),
      ).toBe(false);
      if (result.statistics.output_tokens > 2500) expect(result.messages).toHaveLength(1);
    }
  });
});
