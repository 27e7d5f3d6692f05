import { type ChatMessage, CtxkitError, ErrorCodes, ProviderPayloadError } from '@ctxkit/core';
import { loadConversations } from '@ctxkit/core/testing';

import { EARLIER_CONVERSATION_NOTE, toAnthropicMessages } from './anthropic-adapter';
import { PROVIDER_NAMES } from './provider-name';
import { findAnthropicProblems, findProviderProblems, validateForProvider } from './validate-for-provider';

const tau = loadConversations('tau-bench-airline');
const openhands = loadConversations('openhands-multi-swe-bench');
const call = (id: string): ChatMessage => ({
  role: 'assistant',
  content: null,
  tool_calls: [{ id, type: 'function', function: { name: 'f', arguments: '{}' } }],
});

function thrown(fn: () => void): CtxkitError {
  try {
    fn();
  } catch (error) {
    return error as CtxkitError;
  }
  throw new Error('expected a throw');
}

describe('validateForProvider', () => {
  describe('#validateForProvider', () => {
    it('accepts every complete tau-bench conversation for every provider', () => {
      for (const record of tau) {
        for (const provider of PROVIDER_NAMES)
          expect(() => validateForProvider(provider, record.messages)).not.toThrow();
      }
    });

    it('refuses the OpenHands runs that end on a finish call without its result', () => {
      const dangling = openhands.filter((record) => {
        const last = record.messages[record.messages.length - 1]!;
        return last.role === 'assistant' && (last.tool_calls?.length ?? 0) > 0;
      });
      expect(dangling.length).toBe(2);
      for (const record of dangling) {
        for (const provider of PROVIDER_NAMES) {
          const error = thrown(() => validateForProvider(provider, record.messages));
          expect(error).toBeInstanceOf(ProviderPayloadError);
          expect(error.code).toBe(ErrorCodes.PROVIDER_PAYLOAD_INVALID);
          expect(error.message).toMatch(/missing-tool-result/);
        }
      }
    });

    it('refuses an orphan tool result left by a trimmer that cut a pair', () => {
      const record = tau.find((r) => r.history.some((m) => m.role === 'tool'))!;
      const toolIndex = record.history.findIndex((m) => m.role === 'tool');
      const cut = [
        { role: 'system', content: record.systemPrompt } as ChatMessage,
        { role: 'user', content: 'hi' } as ChatMessage,
        ...record.history.slice(toolIndex),
      ];
      for (const provider of PROVIDER_NAMES) {
        const error = thrown(() => validateForProvider(provider, cut));
        expect((error.details.problems as string[]).some((p) => p.startsWith('orphan-tool-result'))).toBe(true);
      }
    });

    it('refuses a leading tool message', () => {
      const messages: ChatMessage[] = [
        { role: 'system', content: 's' },
        { role: 'tool', tool_call_id: 'x', content: 'r' },
        { role: 'user', content: 'q' },
      ];
      const error = thrown(() => validateForProvider('openai-chat', messages));
      expect(error.details.problems).toEqual(expect.arrayContaining([expect.stringMatching(/^leading-tool-message/)]));
    });

    it('lists every problem, not only the first', () => {
      const messages: ChatMessage[] = [
        { role: 'tool', tool_call_id: 'x', content: 'r' },
        { role: 'assistant', content: null },
        call('y'),
      ];
      const error = thrown(() => validateForProvider('openai-chat', messages));
      const rules = (error.details.problems as string[]).map((p) => p.split(' ')[0]);
      expect(rules).toEqual(
        expect.arrayContaining([
          'leading-tool-message',
          'orphan-tool-result',
          'missing-tool-result',
          'no-user-message',
          'empty-assistant',
        ]),
      );
    });
  });

  describe('#findProviderProblems', () => {
    it(
      'repairs an Anthropic conversation that starts with an assistant message (a user message must come ' + 'first)',
      () => {
        const messages: ChatMessage[] = [
          { role: 'system', content: 's' },
          { role: 'assistant', content: 'hello' },
          { role: 'user', content: 'q' },
        ];
        expect(findProviderProblems('anthropic', messages)).toEqual([]);
        const converted = toAnthropicMessages(messages);
        expect(converted.insertedLeadingUserMessage).toBe(true);
        expect(converted.messages[0]).toEqual({
          role: 'user',
          content: [{ type: 'text', text: EARLIER_CONVERSATION_NOTE }],
        });
        expect(
          findAnthropicProblems([{ role: 'assistant', content: [{ type: 'text', text: 'hello' }] }]).map((p) => p.rule),
        ).toContain('anthropic-first-not-user');
        expect(
          findProviderProblems('openai-chat', [
            { role: 'assistant', content: 'hello' },
            { role: 'user', content: 'q' },
          ]),
        ).toEqual([]);
      },
    );

    it(
      'sends an Anthropic conversation that opens with a compaction block as it is: the block is the first of the ' +
        'conversation, with no note before it',
      () => {
        const compaction = {
          type: 'compaction',
          content: 'The user asked about 8JX2.',
          encrypted_content: null,
          signature: 'sig',
        };
        const messages: ChatMessage[] = [
          { role: 'system', content: 's' },
          { role: 'assistant', content: null, reasoning: [{ provider: 'anthropic', data: compaction }] },
          { role: 'user', content: 'q' },
        ];
        const converted = toAnthropicMessages(messages);
        expect(converted.insertedLeadingUserMessage).toBe(false);
        expect(converted.messages[0]).toEqual({ role: 'assistant', content: [compaction] });
        expect(findProviderProblems('anthropic', messages)).toEqual([]);
      },
    );

    it('finds tool arguments Anthropic cannot take', () => {
      const problems = findProviderProblems('anthropic', [
        { role: 'user', content: 'q' },
        {
          role: 'assistant',
          content: null,
          tool_calls: [{ id: 'c', type: 'function', function: { name: 'f', arguments: '[1,2]' } }],
        },
        { role: 'tool', tool_call_id: 'c', content: 'r' },
      ]);
      expect(problems.map((p) => p.rule)).toEqual(['anthropic-invalid-tool-arguments']);
    });

    it('finds a call id used twice in one OpenAI message', () => {
      const problems = findProviderProblems('openai-chat', [
        { role: 'user', content: 'q' },
        {
          role: 'assistant',
          content: null,
          tool_calls: [
            { id: 'd', type: 'function', function: { name: 'f', arguments: '{}' } },
            { id: 'd', type: 'function', function: { name: 'g', arguments: '{}' } },
          ],
        },
        { role: 'tool', tool_call_id: 'd', content: '1' },
        { role: 'tool', tool_call_id: 'd', content: '2' },
      ]);
      expect(problems.map((p) => p.rule)).toEqual(['duplicate-call-id']);
    });

    it('accepts reused ids across messages (tau-bench) for Anthropic, whose adapter renames them', () => {
      const record = tau.find((r) => r.id === 'tau-bench/airline/gpt-4o/task-0/trial-0')!;
      expect(findProviderProblems('anthropic', record.messages)).toEqual([]);
    });
  });
});
