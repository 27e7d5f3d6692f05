import fc from 'fast-check';

import type { ChatMessage } from '../contracts/chat-message';
import { createTokenCounter } from '../token-counting/create-token-counter';
import { HistoryLedger } from './history-ledger';
import { type HistoryWindow, selectHistoryWindow } from './select-history-window';

const counter = createTokenCounter({ model: 'gpt-4o' });

function exchange(id: string, words: number): ChatMessage[] {
  return [
    {
      role: 'assistant',
      content: '',
      tool_calls: [{ id, type: 'function', function: { name: 'run', arguments: `{"cmd":"make ${id}"}` } }],
    },
    { role: 'tool', tool_call_id: id, content: `${id}: ${'compiled ok '.repeat(words)}` },
  ];
}

const plain = (window: HistoryWindow) => JSON.stringify(window);

describe('KeptGroupRun (through selectHistoryWindow)', () => {
  it(
    'selects, on a ledger kept across turns, what a new ledger selects: growth, other budgets and starts, messages ' +
      'replaced in place',
    () => {
      const arbTurn = fc.record({
        exchanges: fc.array(fc.integer({ min: 1, max: 120 }), { maxLength: 3 }),
        budget: fc.integer({ min: 20, max: 3000 }),
        startIndex: fc.integer({ min: 0, max: 30 }),
        replaceBack: fc.option(fc.integer({ min: 1, max: 25 })),
      });
      fc.assert(
        fc.property(fc.array(arbTurn, { minLength: 2, maxLength: 25 }), (turns) => {
          const ledger = new HistoryLedger(counter);
          const history: ChatMessage[] = [];
          turns.forEach((turn, number) => {
            turn.exchanges.forEach((words, position) => history.push(...exchange(`c${number}_${position}`, words)));
            history.push({ role: 'user', content: `turn ${number}` });
            if (turn.replaceBack !== null && history.length > turn.replaceBack) {
              // The same array, one older message replaced by a new object, as the ledger's callers signal it.
              const at = history.length - turn.replaceBack;
              history[at] = {
                ...history[at]!,
                content:
                  history[at]!.role === 'tool'
                    ? '[output moved out of the context]'
                    : `${String(history[at]!.content)} (edited)`,
              } as ChatMessage;
              ledger.invalidate(at);
            }
            const view = history.slice();
            for (const startIndex of [0, Math.min(turn.startIndex, view.length)]) {
              const options = { history: view, budgetTokens: turn.budget, counter, startIndex };
              expect(plain(selectHistoryWindow({ ...options, ledger }))).toBe(plain(selectHistoryWindow(options)));
              expect(
                plain(selectHistoryWindow({ ...options, budgetTokens: Math.floor(turn.budget / 2), ledger })),
              ).toBe(plain(selectHistoryWindow({ ...options, budgetTokens: Math.floor(turn.budget / 2) })));
            }
          });
        }),
        { numRuns: 80 },
      );
    },
  );

  it('checks again only from where a caller that grows its array in place says it changed it', () => {
    const history: ChatMessage[] = [];
    for (let index = 0; index < 40; index++) history.push(...exchange(`c${index}`, 20));
    history.push({ role: 'user', content: 'go on' });
    const ledger = new HistoryLedger(counter);
    const select = () => selectHistoryWindow({ history, budgetTokens: 1500, counter, ledger });
    const fresh = () => selectHistoryWindow({ history: history.slice(), budgetTokens: 1500, counter });
    const first = select();
    expect(first.fromIndex).toBeGreaterThan(20);
    // The same array grown, and a message the window kept replaced by a longer one.
    const kept = history.length - 10;
    const replace = () => {
      history[kept] = {
        ...history[kept]!,
        content: `${String(history[kept]!.content)} ${'more output '.repeat(40)}`,
      } as ChatMessage;
    };
    history.push(...exchange('new', 3), { role: 'user', content: 'and now?' });
    replace();
    ledger.sync(history, kept);
    expect(plain(select())).toBe(plain(fresh()));

    // Said to be unchanged up to past the replaced message, the run is trusted there: its tokens are the old ones.
    history.push(...exchange('newer', 3), { role: 'user', content: 'and then?' });
    replace();
    ledger.sync(history, history.length - 2);
    expect(select().tokens).toBeLessThan(fresh().tokens);
    // Not said at all, the grown array is checked in full.
    history.push(...exchange('newest', 3), { role: 'user', content: 'done?' });
    replace();
    ledger.sync(history);
    expect(plain(select())).toBe(plain(fresh()));
  });
});
