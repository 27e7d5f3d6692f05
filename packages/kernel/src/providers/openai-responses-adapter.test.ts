import { type ChatMessage, CtxkitError } from '@ctxkit/core';
import { loadConversations } from '@ctxkit/core/testing';

import {
  fromResponsesOutput,
  type ResponsesInputItem,
  toResponsesInput,
  toResponsesTools,
} from './openai-responses-adapter';
import { findProviderProblems } from './validate-for-provider';

describe('openai-responses-adapter', () => {
  describe('#toResponsesInput', () => {
    it('turns messages, calls and results into input items', () => {
      const history: ChatMessage[] = [
        { role: 'system', content: 'be brief' },
        { role: 'user', content: 'weather?' },
        {
          role: 'assistant',
          content: 'Checking.',
          tool_calls: [{ id: 'c1', type: 'function', function: { name: 'weather', arguments: '{"city":"Oslo"}' } }],
        },
        { role: 'tool', tool_call_id: 'c1', content: 'rain' },
        { role: 'assistant', content: 'It rains.' },
      ];
      expect(toResponsesInput(history)).toEqual([
        { type: 'message', role: 'system', content: 'be brief' },
        { type: 'message', role: 'user', content: 'weather?' },
        { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'Checking.' }] },
        { type: 'function_call', call_id: 'c1', name: 'weather', arguments: '{"city":"Oslo"}' },
        { type: 'function_call_output', call_id: 'c1', output: 'rain' },
        { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'It rains.' }] },
      ]);
    });

    it('keeps a reasoning item right before the function_call it belongs to', () => {
      const items = toResponsesInput([
        { role: 'user', content: 'q' },
        {
          role: 'assistant',
          content: null,
          tool_calls: [{ id: 'c1', type: 'function', function: { name: 'f', arguments: '{}' } }],
          reasoning: [
            { provider: 'openai', data: { type: 'reasoning', id: 'rs_1', summary: [], encrypted_content: 'xyz' } },
          ],
        },
        { role: 'tool', tool_call_id: 'c1', content: 'r' },
      ]);
      expect(items.map((item) => item.type)).toEqual(['message', 'reasoning', 'function_call', 'function_call_output']);
      expect(items[1]).toEqual({ type: 'reasoning', id: 'rs_1', summary: [], encrypted_content: 'xyz' });
    });

    it('gives every function_call of a tau-bench conversation a unique call_id paired with its output', () => {
      for (const record of loadConversations('tau-bench-airline')) {
        const items = toResponsesInput(record.history);
        const calls = items.filter(
          (i): i is Extract<ResponsesInputItem, { type: 'function_call' }> => i.type === 'function_call',
        );
        const outputs = items.filter(
          (i): i is Extract<ResponsesInputItem, { type: 'function_call_output' }> => i.type === 'function_call_output',
        );
        expect(new Set(calls.map((c) => c.call_id)).size).toBe(calls.length);
        const callIds = new Set(calls.map((c) => c.call_id));
        for (const output of outputs) expect(callIds.has(output.call_id)).toBe(true);
      }
    });

    it('maps user image parts to input_image', () => {
      const items = toResponsesInput([
        {
          role: 'user',
          content: [
            { type: 'text', text: 'see' },
            { type: 'image_url', image_url: { url: 'https://x/y.png', detail: 'low' } },
          ],
        },
      ]);
      expect(items[0]).toEqual({
        type: 'message',
        role: 'user',
        content: [
          { type: 'input_text', text: 'see' },
          { type: 'input_image', image_url: 'https://x/y.png', detail: 'low' },
        ],
      });
    });
  });

  describe('#toResponsesTools', () => {
    it('flattens function tools', () => {
      expect(
        toResponsesTools([
          { type: 'function', function: { name: 'f', description: 'd', parameters: { type: 'object' } } },
        ]),
      ).toEqual([{ type: 'function', name: 'f', description: 'd', parameters: { type: 'object' } }]);
    });
  });

  describe('#fromResponsesOutput', () => {
    it('reads reasoning, text and function calls', () => {
      const message = fromResponsesOutput([
        { type: 'reasoning', id: 'rs_1', summary: [] },
        { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'Calling.' }] },
        { type: 'function_call', id: 'fc_1', call_id: 'call_9', name: 'f', arguments: '{"a":1}', status: 'completed' },
      ]);
      expect(message).toEqual({
        role: 'assistant',
        content: 'Calling.',
        tool_calls: [{ id: 'call_9', type: 'function', function: { name: 'f', arguments: '{"a":1}' } }],
        reasoning: [{ provider: 'openai', data: { type: 'reasoning', id: 'rs_1', summary: [] } }],
      });
    });

    it('rejects malformed output with a typed error', () => {
      expect(() => fromResponsesOutput({})).toThrow(CtxkitError);
      expect(() => fromResponsesOutput([{ type: 'function_call', name: 'f' }])).toThrow(/lacks call_id/);
    });
  });

  describe('opaque items', () => {
    const compaction = { type: 'compaction', id: 'cmp_1', encrypted_content: 'gAAAAABcompact/+Zz==' };
    const reasoning = {
      type: 'reasoning',
      id: 'rs_1',
      summary: [{ type: 'summary_text', text: 'Check the fare — 運賃.' }],
      encrypted_content: 'gAAAAABo/+k9Qx==',
    };
    const output = [
      compaction,
      reasoning,
      { type: 'function_call', call_id: 'c1', name: 'get', arguments: '{"id":"HAT039"}' },
    ];

    it(
      'sends compaction and encrypted reasoning items back byte for byte, in the order received, before the ' + 'call',
      () => {
        const message = fromResponsesOutput(structuredClone(output));
        expect(message.reasoning).toEqual([
          { provider: 'openai', data: compaction },
          { provider: 'openai', data: reasoning },
        ]);
        const input = toResponsesInput([
          { role: 'user', content: 'q' },
          message,
          { role: 'tool', tool_call_id: 'c1', content: 'ok' },
        ]);
        expect(JSON.stringify(input.slice(1, 4))).toBe(JSON.stringify(output));
        expect(
          findProviderProblems('openai-responses', [
            { role: 'user', content: 'q' },
            message,
            { role: 'tool', tool_call_id: 'c1', content: 'ok' },
          ]),
        ).toEqual([]);
      },
    );

    it('refuses a compaction item without its encrypted content', () => {
      const message: ChatMessage = {
        role: 'assistant',
        content: 'Done.',
        reasoning: [{ provider: 'openai', data: { type: 'compaction', id: 'cmp_2', encrypted_content: '' } }],
      };
      expect(
        findProviderProblems('openai-responses', [{ role: 'user', content: 'q' }, message]).map(
          (problem) => problem.rule,
        ),
      ).toEqual(['openai-compaction-content']);
    });
  });
});
