import type { ChatMessage } from '../contracts/chat-message';
import type { RecallScopeKey } from '../contracts/recall-backend';
import { MemoryContextStore } from '../stores/memory-context-store';
import { RecallIndex } from './recall-index';
import { StoreRecallBackend } from './store-recall-backend';

const scope: RecallScopeKey = { agentId: 'a', scope: 'resource', id: 'user-1' };
const turns = (count: number, prefix = 'turn'): ChatMessage[] =>
  Array.from({ length: count }, (_, index): ChatMessage =>
    index % 2 === 0
      ? { role: 'user', content: `${prefix} ${index} question` }
      : { role: 'assistant', content: `${prefix} ${index} answer` },
  );

function indexOn(store: MemoryContextStore, now = () => 1000): RecallIndex {
  return new RecallIndex({ backend: new StoreRecallBackend(store), scope, maxUnitChars: 6000, now });
}

describe(RecallIndex.name, () => {
  describe('#index', () => {
    it('indexes each whole unit once, a call with its results as one entry', async () => {
      const index = indexOn(new MemoryContextStore());
      const history: ChatMessage[] = [
        { role: 'user', content: 'weather?' },
        {
          role: 'assistant',
          content: null,
          tool_calls: [{ id: 'c', type: 'function', function: { name: 'weather', arguments: '{}' } }],
        },
        { role: 'tool', tool_call_id: 'c', content: 'sleet' },
        { role: 'assistant', content: 'It sleets.' },
      ];
      expect(await index.index('s1', history, history.length)).toBe(3);
      expect(await index.index('s1', history, history.length)).toBe(0);
      expect(index.sessionEntries('s1').map((entry) => [entry.from, entry.to])).toEqual([
        [0, 1],
        [1, 3],
        [3, 4],
      ]);
      expect(index.textOf(index.sessionEntries('s1')[1]!)).toBe('assistant called weather({})\ntool result: sleet');
    });

    it('indexes only what is new on the next turn', async () => {
      const store = new MemoryContextStore();
      const index = indexOn(store);
      const history = turns(6);
      await index.index('s1', history.slice(0, 4), 4);
      expect(await index.index('s1', history, 6)).toBe(2);
      expect(index.size).toBe(6);
    });

    it('reindexes a rewritten history from where it differs, and keeps what still matches', async () => {
      const index = indexOn(new MemoryContextStore());
      const history = turns(6);
      await index.index('s1', history, 6);
      const rewritten = [
        ...history.slice(0, 2),
        { role: 'user' as const, content: 'edited question' },
        ...history.slice(3),
      ];
      expect(await index.index('s1', rewritten, 6)).toBe(4);
      expect(index.sessionEntries('s1').map((entry) => index.textOf(entry))).toEqual(
        rewritten.map((message) => `${message.role}: ${String(message.content)}`),
      );
    });

    it(
      'keeps no text of the units a history it was checked against holds, and reads them back from the newest such ' +
        'history',
      async () => {
        const store = new MemoryContextStore();
        const index = indexOn(store);
        const history = turns(6);
        await index.index('s1', history, 6);
        const texts = history.map((message) => `${message.role}: ${String(message.content)}`);
        expect(index.sessionEntries('s1').map((entry) => entry.text)).toEqual(Array(6).fill(undefined));
        expect(index.sessionEntries('s1').map((entry) => index.textOf(entry))).toEqual(texts);
        // A late, shorter request leaves the source as it was: the newer units are still read back.
        await index.index('s1', history.slice(0, 2), 2);
        expect(index.sessionEntries('s1').map((entry) => index.textOf(entry))).toEqual(texts);
        // A rewritten history: what it changed is indexed again, and every unit read from it.
        const rewritten = [
          ...history.slice(0, 4),
          { role: 'user' as const, content: 'edited question' },
          ...history.slice(5),
          { role: 'user' as const, content: 'and one more' },
        ];
        await index.index('s1', rewritten, 7);
        expect(index.sessionEntries('s1').map((entry) => index.textOf(entry))).toEqual(
          rewritten.map((message) => `${message.role}: ${String(message.content)}`),
        );
        // Another process, and this one after a restart, have the texts from the log until the session is indexed
        // there.
        const other = indexOn(store);
        await other.refresh();
        expect(other.sessionEntries('s1').map((entry) => entry.text)).toEqual(
          rewritten.map((message) => `${message.role}: ${String(message.content)}`),
        );
        await other.index('s1', rewritten, 7);
        expect(other.sessionEntries('s1').map((entry) => entry.text)).toEqual(Array(7).fill(undefined));
        expect(other.sessionEntries('s1').map((entry) => other.textOf(entry))).toEqual(
          rewritten.map((message) => `${message.role}: ${String(message.content)}`),
        );
        // The same history rebuilt from JSON reads the same; one changed in place reads nothing for the units it
        // changed.
        const copy = JSON.parse(JSON.stringify(rewritten)) as ChatMessage[];
        await other.index('s1', copy, 7);
        expect(other.sessionEntries('s1').map((entry) => other.textOf(entry))).toEqual(
          rewritten.map((message) => `${message.role}: ${String(message.content)}`),
        );
        copy[1] = { role: 'assistant', content: 'changed in place' };
        copy[2] = { ...copy[2]! };
        expect(other.sessionEntries('s1').map((entry) => other.textOf(entry))).toEqual(
          rewritten.map((message, at) => (at === 1 ? '' : `${message.role}: ${String(message.content)}`)),
        );
      },
    );

    it('changes nothing for a late, shorter history that matches what is indexed', async () => {
      const index = indexOn(new MemoryContextStore());
      const history = turns(8);
      await index.index('s1', history, 8);
      expect(await index.index('s1', history.slice(0, 3), 3)).toBe(0);
      expect(index.size).toBe(8);
    });
  });

  describe('#refresh', () => {
    it('rebuilds from the store alone after a restart, and finds the turns by their words', async () => {
      const store = new MemoryContextStore();
      await indexOn(store).index('s1', [{ role: 'user', content: 'my locker code is 4417' }, ...turns(4)], 5);
      const reopened = indexOn(store);
      await reopened.refresh();
      expect(reopened.size).toBe(5);
      const found = reopened.lexical!.search(reopened.lexical!.queryTerms('locker code')).slots;
      expect(found.map((slot) => reopened.entryAt(slot)!.from)).toEqual([0]);
    });

    it('sees the turns another index on the same store appended, each once', async () => {
      const store = new MemoryContextStore();
      const first = indexOn(store);
      const second = indexOn(store);
      await first.index('a', turns(4, 'alpha'), 4);
      await second.index('b', turns(4, 'beta'), 4);
      await second.index('a', turns(4, 'alpha'), 4);
      await first.refresh();
      expect(first.size).toBe(8);
      expect(second.size).toBe(8);
      expect(new Set([...first.sessionIds()])).toEqual(new Set(['a', 'b']));
    });
  });

  describe('#episodeStart', () => {
    it('starts an episode after a gap in time', async () => {
      let now = 0;
      const index = indexOn(new MemoryContextStore(), () => now);
      const history = turns(6);
      await index.index('s', history, 2);
      now = 10 * 60_000;
      await index.index('s', history, 4);
      now = 24 * 3600_000;
      await index.index('s', history, 6);
      const episodes = index
        .sessionEntries('s')
        .map((_entry, position) => index.episodeStart('s', position, 30 * 60_000));
      expect(episodes[0]).toBe(episodes[3]);
      expect(episodes[4]).not.toBe(episodes[3]);
    });
  });

  describe('#addVectors', () => {
    it('keeps vectors with the entries they belong to, for other readers too', async () => {
      const store = new MemoryContextStore();
      const index = indexOn(store);
      await index.index('s', turns(2), 2);
      const [first] = index.sessionEntries('s');
      await index.addVectors('m', [{ entryId: first!.id, vector: [3, 4] }]);
      const reopened = indexOn(store);
      await reopened.refresh();
      expect(reopened.vector(first!.id)).toMatchObject({ model: 'm', norm: 5 });
      expect(reopened.entriesWithoutVector('m', 10).map((entry) => entry.from)).toEqual([1]);
    });
  });
});
