import type { ChatMessage } from '@ctxkit/core';
import { loadConversations } from '@ctxkit/core/testing';

import { toResponsesInput } from './openai-responses-adapter';
import { ResponsesHistoryCache } from './responses-history-cache';

describe('ResponsesHistoryCache', () => {
  const record = loadConversations('tau-bench-airline').find(
    (r) => r.id === 'tau-bench/airline/gpt-4o/task-0/trial-0',
  )!;

  describe('#sync', () => {
    it('appends when the history continues what it holds', () => {
      const cache = new ResponsesHistoryCache();
      expect(cache.sync(record.history.slice(0, 5))).toBe('appended');
      expect(cache.sync(record.history.slice(0, 5))).toBe('unchanged');
      expect(cache.sync(record.history)).toBe('appended');
      expect(cache.items()).toEqual(toResponsesInput(record.history));
      expect(cache.messageCount).toBe(record.history.length);
    });

    it('rebuilds from the compacted messages after compaction', () => {
      const cache = new ResponsesHistoryCache();
      cache.sync(record.history);
      const sizeBefore = cache.items().length;
      const compacted: ChatMessage[] = [
        { role: 'user', content: '<retain>user id mia_li_3668</retain>' },
        { role: 'user', content: 'Summary: the user booked a flight.' },
        ...record.history.slice(-2),
      ];
      expect(cache.sync(compacted)).toBe('rebuilt');
      expect(cache.items()).toEqual(toResponsesInput(compacted));
      expect(cache.items().length).toBeLessThan(sizeBefore);
      expect(cache.rebuildCount).toBe(1);
    });
  });

  describe('#appendOutput', () => {
    it('keeps provider output items verbatim and returns the canonical message', () => {
      const cache = new ResponsesHistoryCache();
      const history: ChatMessage[] = [{ role: 'user', content: 'q' }];
      cache.sync(history);
      const reply = cache.appendOutput([
        { type: 'reasoning', id: 'rs_1', summary: [], encrypted_content: 'opaque' },
        { type: 'function_call', id: 'fc_1', call_id: 'c1', name: 'f', arguments: '{}', status: 'completed' },
      ]);
      expect(cache.items().slice(1)).toEqual([
        { type: 'reasoning', id: 'rs_1', summary: [], encrypted_content: 'opaque' },
        { type: 'function_call', id: 'fc_1', call_id: 'c1', name: 'f', arguments: '{}' },
      ]);
      const next = [...history, reply, { role: 'tool', tool_call_id: 'c1', content: 'done' } as ChatMessage];
      expect(cache.sync(next)).toBe('appended');
      expect(cache.items()[3]).toEqual({ type: 'function_call_output', call_id: 'c1', output: 'done' });
    });

    it('discards provider output items when the history is rebuilt', () => {
      const cache = new ResponsesHistoryCache();
      cache.sync([{ role: 'user', content: 'q' }]);
      cache.appendOutput([
        { type: 'reasoning', id: 'rs_1', summary: [] },
        { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'a' }] },
      ]);
      cache.rebuild([{ role: 'user', content: 'summary' }]);
      expect(cache.items()).toEqual([{ type: 'message', role: 'user', content: 'summary' }]);
    });
  });

  describe('#appendMessages', () => {
    it('keeps call ids unique across appends', () => {
      const cache = new ResponsesHistoryCache();
      const call = (id: string): ChatMessage => ({
        role: 'assistant',
        content: null,
        tool_calls: [{ id, type: 'function', function: { name: 'f', arguments: '{}' } }],
      });
      cache.appendMessages([
        { role: 'user', content: 'q' },
        call('x'),
        { role: 'tool', tool_call_id: 'x', content: '1' },
      ]);
      cache.appendMessages([call('x'), { role: 'tool', tool_call_id: 'x', content: '2' }]);
      const ids = cache
        .items()
        .flatMap((i) => (i.type === 'function_call' || i.type === 'function_call_output' ? [i.call_id] : []));
      expect(ids).toEqual(['x', 'x', 'x_2', 'x_2']);
    });
  });
});
