import { computeBudget } from '../budget/compute-budget';
import type { ChatMessage } from '../contracts/chat-message';
import { groupEndingAt } from '../messages/group-tool-calls';
import { createTokenCounter } from '../token-counting/create-token-counter';
import { buildPayload } from './build-payload';
import { HistoryLedger } from './history-ledger';
import { selectHistoryWindow } from './select-history-window';

const counter = createTokenCounter({ model: 'gpt-4o' });

function conversation(turns: number): ChatMessage[] {
  const history: ChatMessage[] = [];
  for (let index = 0; index < turns; index++) {
    history.push({ role: 'user', content: `question ${index}` });
    history.push({
      role: 'assistant',
      content: null,
      tool_calls: [{ id: `c${index}`, type: 'function', function: { name: 'read', arguments: '{}' } }],
    });
    history.push({
      role: 'tool',
      tool_call_id: `c${index}`,
      content: `output ${index}: ${'line of text '.repeat(80)}`,
    });
  }
  return history;
}

describe('HistoryLedger', () => {
  describe('#groupEndingAt', () => {
    it('finds a unit once, and again only when one of its messages has another role or other call ids', () => {
      const ledger = new HistoryLedger(counter);
      const history = conversation(3);
      const found = ledger.groupEndingAt(history, 6);
      expect(found).toEqual(groupEndingAt(history, 6));
      expect(ledger.groupEndingAt([...history], 6)).toBe(found);
      // A tool output shown in another form (a placeholder copy) makes the same unit.
      const shown = [...history];
      shown[5] = { ...(history[5] as Extract<ChatMessage, { role: 'tool' }>), content: '[tool output trimmed]' };
      expect(ledger.groupEndingAt(shown, 6)).toBe(found);
      // The call rewritten in place with a second call whose result does not follow: an incomplete exchange now.
      const call = history[4] as Extract<ChatMessage, { role: 'assistant' }>;
      history[4] = {
        ...call,
        tool_calls: [
          ...call.tool_calls!,
          { id: 'extra', type: 'function', function: { name: 'read', arguments: '{}' } },
        ],
      };
      expect(ledger.groupEndingAt(history, 6)).toEqual(groupEndingAt(history, 6));
      expect(ledger.groupEndingAt(history, 6).kind).not.toBe(found.kind);
    });

    it('does not keep a call cut from its results, which depend on what follows it', () => {
      const ledger = new HistoryLedger(counter);
      const history = conversation(2);
      const cut = ledger.groupEndingAt(history, 5);
      expect(cut).toEqual(groupEndingAt(history, 5));
      // The result after the call answers another id now: the same call is a dangling one.
      history[5] = { role: 'tool', tool_call_id: 'other', content: 'late' };
      expect(ledger.groupEndingAt(history, 5)).toEqual(groupEndingAt(history, 5));
      expect(ledger.groupEndingAt(history, 5).kind).toBe('incomplete-tool-exchange');
    });
  });

  describe('#checkShape', () => {
    it('checks only what a grown history added, and the whole of any other', () => {
      const ledger = new HistoryLedger(counter);
      const history: unknown[] = conversation(2);
      ledger.checkShape(history);
      // Grown (the same first message, and the same one where it ended): only the new message is checked.
      const grown = [...history, { role: 'user', content: 'next' }];
      grown[1] = { role: 'narrator' };
      expect(() => ledger.checkShape(grown)).not.toThrow();
      expect(() => ledger.checkShape([...grown, { role: 'narrator' }])).toThrow(
        expect.objectContaining({ code: 'CTXKIT_HISTORY_INVALID' }),
      );
      // Another history: checked whole.
      expect(() => ledger.checkShape([{ role: 'user', content: 'hi' }, ...grown.slice(1)])).toThrow(
        expect.objectContaining({ code: 'CTXKIT_HISTORY_INVALID' }),
      );
    });
  });

  describe('#tokensWithin', () => {
    it('measures again a middle message replaced by a new object while first and last stayed', () => {
      const ledger = new HistoryLedger(counter);
      const history = conversation(4);
      ledger.sync(history);
      const before = ledger.tokensAt(history, 5);
      const edited = history.slice();
      edited[5] = { role: 'tool', tool_call_id: 'c1', content: `edited: ${'a much longer output '.repeat(200)}` };
      expect(ledger.sync(edited)).toBe('identity');
      expect(ledger.tokensAt(edited, 5)).toBe(counter.countMessage(edited[5]!));
      expect(ledger.tokensAt(edited, 5)).toBeGreaterThan(before);
      expect(ledger.totalTokens(edited)).toBe(counter.countMessages(edited));
    });

    it('keeps a window within budget after such an edit', () => {
      const ledger = new HistoryLedger(counter);
      const history = conversation(6);
      selectHistoryWindow({ history, budgetTokens: 2000, counter, ledger });
      const edited = history.slice();
      edited[14] = { role: 'tool', tool_call_id: 'c4', content: `edited: ${'a much longer output '.repeat(300)}` };
      edited.push({ role: 'user', content: 'and now?' });
      const window = selectHistoryWindow({ history: edited, budgetTokens: 2000, counter, ledger });
      expect(counter.countMessages(window.messages)).toBeLessThanOrEqual(2000);
    });
  });

  describe('#tokensAt', () => {
    it('measures a position again after its message was replaced in place, unasked', () => {
      const ledger = new HistoryLedger(counter);
      const history = conversation(3);
      ledger.sync(history);
      expect(ledger.totalTokens(history)).toBe(counter.countMessages(history));
      // A working view: the same array shape, one old output shortened to a placeholder.
      const view = history.slice();
      view[2] = { role: 'tool', tool_call_id: 'c0', content: '[tool output trimmed]' };
      expect(ledger.sync(view)).toBe('identity');
      expect(ledger.tokensAt(view, 2)).toBe(counter.countMessage(view[2]!));
      expect(ledger.totalTokens(view)).toBe(counter.countMessages(view));
    });
  });
});

describe('selectHistoryWindow', () => {
  describe('#startIndex', () => {
    it('selects only from the start index on and reports nothing before it', () => {
      const history = conversation(6);
      const window = selectHistoryWindow({ history, budgetTokens: 100_000, counter, startIndex: 9 });
      expect(window.messages).toEqual(history.slice(9));
      expect(window.fromIndex).toBe(9);
      expect(window.reductions).toEqual([]);
    });

    it('reports the dropped range from the start index, not from 0', () => {
      const history = conversation(6);
      const window = selectHistoryWindow({
        history,
        budgetTokens: counter.countMessages(history.slice(15)),
        counter,
        startIndex: 6,
      });
      expect(window.messages).toEqual(history.slice(15));
      expect(window.reductions).toEqual([expect.objectContaining({ action: 'dropped', from: 6, to: 15 })]);
    });

    it('looks for the newest user message only from the start index on', () => {
      const history: ChatMessage[] = [
        { role: 'user', content: 'covered by a summary' },
        { role: 'assistant', content: 'answer' },
      ];
      const window = selectHistoryWindow({ history, budgetTokens: 1, counter, startIndex: 1 });
      expect(window.messages).toEqual([]);
      expect(window.reductions).toEqual([expect.objectContaining({ action: 'dropped', from: 1, to: 2 })]);
    });
  });
});

describe('buildPayload', () => {
  describe('#memoryFirst', () => {
    it('places the memory block right after the system block, before the dynamic context', () => {
      const history = conversation(2);
      const system: ChatMessage[] = [{ role: 'system', content: 'You are helpful.' }];
      const dynamic: ChatMessage[] = [{ role: 'system', content: 'Relevant context.' }];
      const memory: ChatMessage[] = [{ role: 'system', content: 'Summary of earlier turns.' }];
      const window = selectHistoryWindow({ history, budgetTokens: 100_000, counter });
      const options = {
        strategyId: 'test',
        model: 'gpt-4o',
        counter,
        budget: computeBudget({ contextWindow: 128_000 }),
        historyLength: history.length,
        historyInputTokens: 0,
      };
      const first = buildPayload({
        ...options,
        memoryFirst: true,
        sections: { system, tools: [], dynamic, memory, history: window },
      });
      expect(first.messages).toEqual([...system, ...memory, ...dynamic, ...history]);
      const plain = buildPayload({ ...options, sections: { system, tools: [], dynamic, memory, history: window } });
      expect(plain.messages).toEqual([...system, ...dynamic, ...memory, ...history]);
      expect(first.stats.sections).toEqual(plain.stats.sections);
    });
  });
});
