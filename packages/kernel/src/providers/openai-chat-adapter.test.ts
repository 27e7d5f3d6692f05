import { type ChatMessage, CtxkitError, ErrorCodes } from '@ctxkit/core';
import { loadConversations } from '@ctxkit/core/testing';

import { fromOpenAIChatMessage, toOpenAIChatMessages, toOpenAIChatTools } from './openai-chat-adapter';

describe('openai-chat-adapter', () => {
  describe('#toOpenAIChatMessages', () => {
    it('is the identity on the real conversations', () => {
      for (const record of [
        ...loadConversations('tau-bench-airline').slice(0, 20),
        ...loadConversations('openhands-multi-swe-bench'),
      ]) {
        expect(toOpenAIChatMessages(record.messages)).toEqual(record.messages);
      }
    });

    it('drops ctxkit-only fields and never mutates its input', () => {
      const history: ChatMessage[] = [
        { role: 'user', content: 'hi' },
        {
          role: 'assistant',
          content: null,
          tool_calls: [{ id: 'c', type: 'function', function: { name: 'f', arguments: '{}' } }],
          reasoning: [{ provider: 'openai', data: { type: 'reasoning', id: 'rs_1' } }],
        },
        { role: 'tool', tool_call_id: 'c', content: 'view', output_ref: { id: 'ref-1', byte_size: 10 } },
      ];
      const before = structuredClone(history);
      const out = toOpenAIChatMessages(history);
      expect(out[1]).not.toHaveProperty('reasoning');
      expect(out[2]).toEqual({ role: 'tool', tool_call_id: 'c', content: 'view' });
      expect(history).toEqual(before);
    });
  });

  describe('#toOpenAIChatTools', () => {
    it('copies tool definitions', () => {
      const [tool] = loadConversations('openhands-multi-swe-bench')[0]!.tools!;
      const [copy] = toOpenAIChatTools([tool!]);
      expect(copy).toEqual(tool);
      expect(copy!.function).not.toBe(tool!.function);
    });
  });

  describe('#fromOpenAIChatMessage', () => {
    it('reads text and tool calls', () => {
      const message = fromOpenAIChatMessage({
        role: 'assistant',
        content: null,
        tool_calls: [
          { id: 'call_1', type: 'function', function: { name: 'get_user_details', arguments: '{"user_id":"u1"}' } },
        ],
      });
      expect(message).toEqual({
        role: 'assistant',
        content: null,
        tool_calls: [
          { id: 'call_1', type: 'function', function: { name: 'get_user_details', arguments: '{"user_id":"u1"}' } },
        ],
      });
    });

    it('keeps reasoning_content as a reasoning item', () => {
      const message = fromOpenAIChatMessage({ role: 'assistant', content: 'yes', reasoning_content: 'because' });
      expect(message.reasoning).toEqual([{ provider: 'openai-compatible', data: { reasoning_content: 'because' } }]);
    });

    it('rejects a message that is not an assistant message with a typed error', () => {
      for (const bad of [
        null,
        'text',
        { role: 'user', content: 'x' },
        { content: 42 },
        { content: null, tool_calls: [{ id: 1 }] },
      ]) {
        const error = (() => {
          try {
            fromOpenAIChatMessage(bad, 'test-client');
            return undefined;
          } catch (e) {
            return e;
          }
        })();
        expect(CtxkitError.isInstance(error)).toBe(true);
        expect((error as CtxkitError).code).toBe(ErrorCodes.LLM_RESPONSE_INVALID);
      }
    });
  });
});
