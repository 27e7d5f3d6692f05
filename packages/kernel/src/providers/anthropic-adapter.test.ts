import { type ChatMessage, CtxkitError, ErrorCodes } from '@ctxkit/core';
import { groupToolCalls } from '@ctxkit/core/strategy-kit';
import { loadConversations } from '@ctxkit/core/testing';

import {
  fromAnthropicContent,
  fromAnthropicMessages,
  toAnthropicMessages,
  toAnthropicTools,
} from './anthropic-adapter';
import { findAnthropicThinkingProblems } from './reasoning-rules';
import { findAnthropicProblems, findProviderProblems } from './validate-for-provider';

const tau = loadConversations('tau-bench-airline');
const openhands = loadConversations('openhands-multi-swe-bench');

/** A history without its trailing unanswered calls (two OpenHands runs end on a `finish` call). */
function complete(history: ChatMessage[]): ChatMessage[] {
  const groups = groupToolCalls(history);
  const last = groups[groups.length - 1];
  return last && last.kind === 'incomplete-tool-exchange' ? history.slice(0, last.start) : history;
}

describe('anthropic-adapter', () => {
  describe('#toAnthropicMessages', () => {
    it('puts the system prompt apart', () => {
      const record = tau[0]!;
      const out = toAnthropicMessages(record.messages);
      expect(out.system).toBe(record.systemPrompt);
      expect(out.systemParts).toEqual([record.systemPrompt]);
      expect(out.messages[0]!.role).toBe('user');
    });

    it('keeps one part per system message, which joined give the system text (blank ones left out)', () => {
      const out = toAnthropicMessages([
        { role: 'system', content: 'You are a travel agent.' },
        { role: 'system', content: '<conversation_summary>booked JFK to MCO</conversation_summary>' },
        { role: 'system', content: '  ' },
        { role: 'system', content: '{"user_id":"amelia_davis_8890"}' },
        { role: 'user', content: 'Hi' },
      ]);
      expect(out.systemParts).toEqual([
        'You are a travel agent.',
        '\n\n<conversation_summary>booked JFK to MCO</conversation_summary>',
        '\n\n{"user_id":"amelia_davis_8890"}',
      ]);
      expect(out.systemParts.join('')).toBe(out.system!.replace('\n\n  ', ''));
      expect(toAnthropicMessages([{ role: 'user', content: 'Hi' }]).systemParts).toEqual([]);
    });

    it('produces a conversation the Messages API accepts for every tau-bench record', () => {
      for (const record of tau) {
        const out = toAnthropicMessages(complete(record.messages));
        expect(findAnthropicProblems(out.messages)).toEqual([]);
      }
    });

    it('produces a valid conversation for the OpenHands runs once the dangling finish call is left out', () => {
      for (const record of openhands) {
        const out = toAnthropicMessages(complete(record.messages));
        expect(findAnthropicProblems(out.messages)).toEqual([]);
      }
    });

    it('rewrites reused tau-bench ids consistently between tool_use and tool_result', () => {
      const record = tau.find((r) => r.id === 'tau-bench/airline/gpt-4o/task-0/trial-0')!;
      const out = toAnthropicMessages(record.messages);
      expect(out.renamedToolCallIds.some((r) => r.from === 'call_HGn16KZh9oNCruxsMJ4gYXan')).toBe(true);
      const useIds: string[] = [];
      for (const message of out.messages) {
        for (const block of message.content) if (block.type === 'tool_use') useIds.push(block.id);
      }
      expect(new Set(useIds).size).toBe(useIds.length);
      expect(useIds).toContain('call_HGn16KZh9oNCruxsMJ4gYXan_2');
    });

    it('merges consecutive tool results, and a following user message, into one user message', () => {
      const history: ChatMessage[] = [
        { role: 'user', content: 'look up both' },
        {
          role: 'assistant',
          content: 'Looking.',
          tool_calls: [
            { id: 'a', type: 'function', function: { name: 'f', arguments: '{"n":1}' } },
            { id: 'b', type: 'function', function: { name: 'f', arguments: '{"n":2}' } },
          ],
        },
        { role: 'tool', tool_call_id: 'a', content: 'one' },
        { role: 'tool', tool_call_id: 'b', content: 'two' },
        { role: 'user', content: 'and?' },
      ];
      const out = toAnthropicMessages(history);
      expect(out.messages).toEqual([
        { role: 'user', content: [{ type: 'text', text: 'look up both' }] },
        {
          role: 'assistant',
          content: [
            { type: 'text', text: 'Looking.' },
            { type: 'tool_use', id: 'a', name: 'f', input: { n: 1 } },
            { type: 'tool_use', id: 'b', name: 'f', input: { n: 2 } },
          ],
        },
        {
          role: 'user',
          content: [
            { type: 'tool_result', tool_use_id: 'a', content: 'one' },
            { type: 'tool_result', tool_use_id: 'b', content: 'two' },
            { type: 'text', text: 'and?' },
          ],
        },
      ]);
    });

    it('merges same-role messages so that roles alternate', () => {
      const out = toAnthropicMessages([
        { role: 'user', content: 'one' },
        { role: 'user', content: 'two' },
        { role: 'assistant', content: 'a' },
        { role: 'assistant', content: 'b' },
      ]);
      expect(out.messages.map((m) => [m.role, m.content.length])).toEqual([
        ['user', 2],
        ['assistant', 2],
      ]);
    });

    it('keeps thinking blocks first, with the tool_use they belong to', () => {
      const out = toAnthropicMessages([
        { role: 'user', content: 'q' },
        {
          role: 'assistant',
          content: null,
          tool_calls: [{ id: 't1', type: 'function', function: { name: 'f', arguments: '{}' } }],
          reasoning: [
            { provider: 'anthropic', data: { type: 'thinking', thinking: 'I should call f', signature: 'sig' } },
            { provider: 'openai', data: { type: 'reasoning', id: 'rs_1' } },
          ],
        },
        { role: 'tool', tool_call_id: 't1', content: 'r' },
      ]);
      expect(out.messages[1]!.content).toEqual([
        { type: 'thinking', thinking: 'I should call f', signature: 'sig' },
        { type: 'tool_use', id: 't1', name: 'f', input: {} },
      ]);
    });

    it('converts image parts to image blocks', () => {
      const out = toAnthropicMessages([
        {
          role: 'user',
          content: [
            { type: 'text', text: 'see' },
            { type: 'image_url', image_url: { url: 'data:image/png;base64,AAAA' } },
            { type: 'image_url', image_url: { url: 'https://example.com/a.png' } },
          ],
        },
      ]);
      expect(out.messages[0]!.content).toEqual([
        { type: 'text', text: 'see' },
        { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'AAAA' } },
        { type: 'image', source: { type: 'url', url: 'https://example.com/a.png' } },
      ]);
    });

    it('reports tool arguments that are not a JSON object', () => {
      const out = toAnthropicMessages([
        { role: 'user', content: 'q' },
        {
          role: 'assistant',
          content: null,
          tool_calls: [{ id: 'c', type: 'function', function: { name: 'f', arguments: '{broken' } }],
        },
        { role: 'tool', tool_call_id: 'c', content: 'r' },
      ]);
      expect(out.invalidToolArguments).toEqual([{ messageIndex: 1, toolCallId: 'c' }]);
    });

    it('never mutates its input', () => {
      const record = tau.find((r) => r.id === 'tau-bench/airline/gpt-4o/task-0/trial-0')!;
      const before = structuredClone(record.messages);
      toAnthropicMessages(record.messages);
      expect(record.messages).toEqual(before);
    });
  });

  describe('#fromAnthropicMessages', () => {
    it('round-trips a tau-bench conversation up to the renamed ids', () => {
      const record = tau.find((r) => r.id === 'tau-bench/airline/gpt-4o/task-2/trial-1') ?? tau[5]!;
      const history = complete(record.messages);
      const out = toAnthropicMessages(history);
      const back = fromAnthropicMessages(out.system, out.messages);
      expect(back.map((m) => m.role)).toEqual(history.map((m) => m.role));
      expect(back.map((m) => (m.role === 'tool' ? m.content : null))).toEqual(
        history.map((m) => (m.role === 'tool' ? m.content : null)),
      );
    });
  });

  describe('#toAnthropicTools', () => {
    it('maps parameters to input_schema', () => {
      const tools = toAnthropicTools(openhands[0]!.tools!);
      expect(tools.map((t) => t.name)).toEqual(openhands[0]!.tools!.map((t) => t.function.name));
      expect(tools[0]!.input_schema).toEqual(openhands[0]!.tools![0]!.function.parameters);
      expect(toAnthropicTools([{ type: 'function', function: { name: 'noargs' } }])[0]!.input_schema).toEqual({
        type: 'object',
        properties: {},
      });
    });
  });

  describe('#fromAnthropicContent', () => {
    it('reads text, tool_use and thinking blocks', () => {
      const message = fromAnthropicContent([
        { type: 'thinking', thinking: 'hmm', signature: 's' },
        { type: 'text', text: 'Let me check.' },
        { type: 'tool_use', id: 'toolu_1', name: 'get', input: { a: 1 } },
      ]);
      expect(message).toEqual({
        role: 'assistant',
        content: 'Let me check.',
        tool_calls: [{ id: 'toolu_1', type: 'function', function: { name: 'get', arguments: '{"a":1}' } }],
        reasoning: [{ provider: 'anthropic', data: { type: 'thinking', thinking: 'hmm', signature: 's' } }],
      });
    });

    it('rejects malformed blocks with a typed error', () => {
      expect(() => fromAnthropicContent('nope')).toThrow(CtxkitError);
      try {
        fromAnthropicContent([{ type: 'tool_use', name: 'x' }]);
      } catch (error) {
        expect((error as CtxkitError).code).toBe(ErrorCodes.LLM_RESPONSE_INVALID);
      }
      expect(() => fromAnthropicContent([{ type: 'tool_use', name: 'x' }])).toThrow(/lacks id or name/);
    });
  });

  describe('opaque blocks', () => {
    const compaction = {
      type: 'compaction',
      content: 'Mia booked HAT039 (économie).',
      encrypted_content: 'b3BhcXVl/+==',
      signature: 'EsgCCompSig/+==',
      tool_changes: [{ type: 'tool_removal', name: 'search' }],
    };
    const failed = { type: 'compaction', content: null, encrypted_content: null };
    const thinking = { type: 'thinking', thinking: 'Prüfe \u2028 予約 🎉', signature: 'EqQBCkYI+/==' };
    const redacted = { type: 'redacted_thinking', data: 'EmwKAhgB/+w==' };
    const reply = [
      compaction,
      failed,
      thinking,
      redacted,
      { type: 'text', text: 'Checking.' },
      { type: 'tool_use', id: 'toolu_1', name: 'get', input: { id: 'HAT039' } },
    ];

    it(
      'sends compaction, thinking and redacted thinking blocks back byte for byte, in the order received, first in ' +
        'their message',
      () => {
        const message = fromAnthropicContent(structuredClone(reply));
        expect(message.reasoning!.map((item) => item.data)).toEqual([compaction, failed, thinking, redacted]);
        const history: ChatMessage[] = [
          { role: 'user', content: 'Where is my booking?' },
          message,
          { role: 'tool', tool_call_id: 'toolu_1', content: 'ok' },
        ];
        const sent = toAnthropicMessages(history).messages[1]!;
        expect(JSON.stringify(sent.content)).toBe(JSON.stringify(reply));
        expect(findProviderProblems('anthropic', history)).toEqual([]);
      },
    );

    it('refuses a compaction block after text, or one whose content was emptied', () => {
      const late: ChatMessage = {
        role: 'assistant',
        content: 'x',
        reasoning: [{ provider: 'anthropic', data: compaction }],
      };
      const converted = toAnthropicMessages([{ role: 'user', content: 'q' }, late]).messages;
      expect(findAnthropicThinkingProblems(converted)).toEqual([]);
      converted[1]!.content.reverse();
      expect(findAnthropicThinkingProblems(converted).map((problem) => problem.rule)).toEqual([
        'anthropic-compaction-order',
      ]);
      const emptied: ChatMessage = {
        role: 'assistant',
        content: 'x',
        reasoning: [{ provider: 'anthropic', data: { ...compaction, content: '' } }],
      };
      expect(
        findProviderProblems('anthropic', [{ role: 'user', content: 'q' }, emptied]).map((problem) => problem.rule),
      ).toEqual(['anthropic-compaction-content']);
    });
  });
});
