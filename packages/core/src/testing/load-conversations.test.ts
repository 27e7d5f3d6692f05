import * as fs from 'node:fs';
import * as path from 'node:path';

import { CtxkitError } from '../errors/ctxkit-error';
import { findPayloadProblems } from '../messages/find-payload-problems';
import { bundledConversationsDir, loadConversations, parseConversations } from './load-conversations';

describe('loadConversations', () => {
  describe('#tau-bench-airline', () => {
    const records = loadConversations('tau-bench-airline');

    it('loads all 200 records with their system prompt split from the history', () => {
      expect(records).toHaveLength(200);
      for (const record of records) {
        expect(record.messages[0]!.role).toBe('system');
        expect(record.systemPrompt).toBe(record.messages[0]!.content);
        expect(record.history).toEqual(record.messages.slice(1));
      }
      expect(records.reduce((sum, record) => sum + record.messages.length, 0)).toBe(5308);
    });

    it('keeps the reused tool-call ids the data is known for', () => {
      const record = records.find((r) => r.id.endsWith('task-0/trial-0'))!;
      const ids = record.history.flatMap((m) => (m.role === 'assistant' ? (m.tool_calls ?? []).map((c) => c.id) : []));
      expect(new Set(ids).size).toBeLessThan(ids.length);
    });
  });

  describe('#openhands-multi-swe-bench', () => {
    it('loads 3 records with tool definitions, two of them ending on a dangling finish call', () => {
      const records = loadConversations('openhands-multi-swe-bench');
      expect(records).toHaveLength(3);
      for (const record of records) expect(record.tools?.length).toBe(4);
      const dangling = records.filter((r) =>
        findPayloadProblems(r.history).some((p) => p.problem === 'missing-tool-result'),
      );
      expect(dangling).toHaveLength(2);
    });
  });

  describe('#errors', () => {
    it('rejects an unknown name with a typed error listing the bundled names', () => {
      expect(() => loadConversations('locomo10')).toThrow(CtxkitError);
      try {
        loadConversations('locomo10');
      } catch (error) {
        expect((error as CtxkitError).code).toBe('CTXKIT_HISTORY_INVALID');
        expect((error as CtxkitError).details.available).toEqual(['tau-bench-airline', 'openhands-multi-swe-bench']);
      }
    });

    it('rejects a line without a system prompt first', () => {
      expect(() => parseConversations('{"id":"x","messages":[{"role":"user","content":"hi"}]}')).toThrow(
        /messages\[0\] must be the system prompt/,
      );
    });
  });

  describe('#bundledConversationsDir', () => {
    it('points at the folder with the licence README', () => {
      expect(fs.existsSync(path.join(bundledConversationsDir(), 'README.md'))).toBe(true);
    });
  });
});
