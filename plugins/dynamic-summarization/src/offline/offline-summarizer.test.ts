import { type ChatMessage } from '@ctxkit/core';
import { HeuristicTokenCounter } from '@ctxkit/core/strategy-kit';
import { loadConversations } from '@ctxkit/core/testing';

import { findTerms } from './information-score';
import { OFFLINE_SUMMARIZER_NAME, OfflineSummarizer } from './offline-summarizer';

const counter = new HeuristicTokenCounter('gpt-4o');
const records = loadConversations('tau-bench-airline');
const first = records.find((record) => record.id === 'tau-bench/airline/gpt-4o/task-0/trial-0')!;

describe('OfflineSummarizer', () => {
  const summarizer = new OfflineSummarizer();

  it('is named as the offline extractive summarizer, never as a language model', () => {
    expect(summarizer.name).toBe(OFFLINE_SUMMARIZER_NAME);
    expect(summarizer.name).toContain('no LLM');
    expect(summarizer.offline).toBe(true);
    expect(summarizer.model).toBe('none');
  });

  describe('#summarize', () => {
    it('keeps user ids, flight numbers, dates and amounts of real tau-bench turns verbatim', async () => {
      const batch = first.history.slice(0, 18);
      const summary = await summarizer.summarize({
        previousSummary: null,
        messages: batch,
        firstIndex: 0,
        maxTokens: 400,
        counter,
      });
      for (const value of ['mia_li_3668', 'HAT136', '2024-05-20', 'JFK', 'SEA']) expect(summary).toContain(value);
      expect(summary).toContain(OFFLINE_SUMMARIZER_NAME);
    });

    it('stays within the token cap', async () => {
      for (const cap of [60, 150, 400, 1000]) {
        const summary = await summarizer.summarize({
          previousSummary: null,
          messages: first.history,
          firstIndex: 0,
          maxTokens: cap,
          counter,
        });
        expect(counter.count(summary)).toBeLessThanOrEqual(cap);
      }
    });

    it('is deterministic', async () => {
      const input = {
        previousSummary: null,
        messages: first.history.slice(0, 20),
        firstIndex: 0,
        maxTokens: 300,
        counter,
      };
      expect(await summarizer.summarize(input)).toBe(await summarizer.summarize(input));
    });

    it('folds a previous summary with the next batch and keeps its key values', async () => {
      const earlier = await summarizer.summarize({
        previousSummary: null,
        messages: first.history.slice(0, 10),
        firstIndex: 0,
        maxTokens: 300,
        counter,
      });
      const folded = await summarizer.summarize({
        previousSummary: earlier,
        messages: first.history.slice(10, 20),
        firstIndex: 10,
        maxTokens: 300,
        counter,
      });
      expect(folded).toContain('mia_li_3668');
      expect(folded).toContain('HAT136');
      expect(folded).toContain('history messages 0-19');
      expect(counter.count(folded)).toBeLessThanOrEqual(300);
    });

    it('is much smaller than the turns it replaces on every tau-bench conversation', async () => {
      for (const record of records.slice(0, 40)) {
        const batch = record.history;
        const summary = summarizer.summarizeSync({
          previousSummary: null,
          messages: batch,
          firstIndex: 0,
          maxTokens: 500,
          counter,
        });
        expect(counter.count(summary)).toBeLessThanOrEqual(Math.min(500, counter.countMessages(batch)));
      }
    });

    it('does not mutate the messages it reads', async () => {
      const batch = structuredClone(first.history.slice(0, 12)) as ChatMessage[];
      const before = JSON.stringify(batch);
      await summarizer.summarize({
        previousSummary: null,
        messages: Object.freeze(batch),
        firstIndex: 0,
        maxTokens: 200,
        counter,
      });
      expect(JSON.stringify(batch)).toBe(before);
    });

    it(
      'counts the lines of the units left after collapsing repeats, not of every unit of a long tool ' + 'output',
      async () => {
        const lines = [
          'INFO worker finished a job',
          'INFO cache warmed for the build',
          'WARN retrying the download of a package',
          'INFO linking the binaries',
        ];
        const log = Array.from({ length: 3000 }, (_, index) => lines[index % lines.length]).join('\n');
        const batch: ChatMessage[] = [
          { role: 'user', content: 'Run the build and tell me if it passes.' },
          {
            role: 'assistant',
            content: null,
            tool_calls: [
              { id: 'c1', type: 'function', function: { name: 'execute_bash', arguments: '{"command":"make"}' } },
            ],
          },
          { role: 'tool', tool_call_id: 'c1', content: log },
          { role: 'assistant', content: 'The build passes.' },
        ];
        const counted: string[] = [];
        const spy: typeof counter = Object.assign(Object.create(counter) as typeof counter, {
          count: (text: string) => {
            counted.push(text);
            return counter.count(text);
          },
        });
        const summary = summarizer.summarizeSync({
          previousSummary: null,
          messages: batch,
          firstIndex: 0,
          maxTokens: 300,
          counter: spy,
        });
        expect(summary).toBe(
          summarizer.summarizeSync({ previousSummary: null, messages: batch, firstIndex: 0, maxTokens: 300, counter }),
        );
        expect(counter.count(summary)).toBeLessThanOrEqual(300);
        expect(counted.length).toBeLessThan(300);
      },
    );

    it('gives an empty summary when the cap cannot hold even its header', async () => {
      expect(
        await summarizer.summarize({
          previousSummary: null,
          messages: first.history,
          firstIndex: 0,
          maxTokens: 3,
          counter,
        }),
      ).toBe('');
    });
  });
});

describe('findTerms', () => {
  it('classifies ids, dates, amounts and codes', () => {
    const kinds = Object.fromEntries(
      findTerms('Book HAT136 from JFK on 2024-05-20 for $255 with user mia_li_3668, reservation ABC123').map((t) => [
        t.text,
        t.kind,
      ]),
    );
    expect(kinds).toMatchObject({
      HAT136: 'id',
      JFK: 'code',
      '2024-05-20': 'date',
      $255: 'amount',
      mia_li_3668: 'id',
      ABC123: 'id',
    });
  });
});
