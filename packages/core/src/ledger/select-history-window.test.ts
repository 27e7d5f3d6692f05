import type { ChatMessage } from '../contracts/chat-message';
import { findPayloadProblems } from '../messages/find-payload-problems';
import { BpeTokenCounter, SharedCountCaches } from '../token-counting/bpe-token-counter';
import { GptTokenizerEncoder } from '../token-counting/bpe-encoder';
import { createTokenCounter } from '../token-counting/create-token-counter';
import { HistoryLedger } from './history-ledger';
import { selectHistoryWindow } from './select-history-window';

const counter = createTokenCounter({ model: 'gpt-4o' });
let callId = 0;

function turn(index: number, output = `result ${index}: ${'data '.repeat(40)}`): ChatMessage[] {
  const id = `call_${++callId}`;
  return [
    { role: 'user', content: `question ${index}: please look up item ${index}` },
    { role: 'assistant', content: null, tool_calls: [{ id, type: 'function', function: { name: 'lookup', arguments: `{"item":${index}}` } }] },
    { role: 'tool', tool_call_id: id, content: output },
    { role: 'assistant', content: `Item ${index} is fine.` },
  ];
}

function history(turns: number): ChatMessage[] {
  return Array.from({ length: turns }, (_, index) => turn(index)).flat();
}

function freshCounter(): BpeTokenCounter {
  return new BpeTokenCounter(new GptTokenizerEncoder('o200k_base'), new SharedCountCaches(), 'gpt-4o', { encoding: 'o200k_base', approximate: false });
}

describe('selectHistoryWindow', () => {
  it('keeps the newest whole groups that fit and reports the rest as one dropped range', () => {
    const messages = history(50);
    const window = selectHistoryWindow({ history: messages, budgetTokens: 1000, counter });
    expect(window.tokens).toBeLessThanOrEqual(1000);
    expect(window.tokens).toBe(counter.countMessages(window.messages));
    expect(window.messages).toEqual(messages.slice(window.fromIndex));
    expect(findPayloadProblems(window.messages)).toEqual([]);
    expect(window.reductions).toEqual([expect.objectContaining({ action: 'dropped', from: 0, to: window.fromIndex, messages: window.fromIndex, recoverableFrom: 'history' })]);
    expect(window.droppedMessages).toBe(window.fromIndex);
  });

  it('touches only what it keeps plus the first group that does not fit', () => {
    const messages = history(2000);
    const ledger = new HistoryLedger(freshCounter());
    const window = selectHistoryWindow({ history: messages, budgetTokens: 2000, counter: ledger.counter, ledger });
    const keptMessages = messages.length - window.fromIndex;
    expect(ledger.measured).toBeLessThanOrEqual(keptMessages + 4);
  });

  it('counts only the new messages on the next turn and nothing on a repeat call', () => {
    const messages = history(500);
    const ledger = new HistoryLedger(freshCounter());
    selectHistoryWindow({ history: messages, budgetTokens: 5000, counter: ledger.counter, ledger });
    const grown = [...messages, { role: 'user', content: 'one more question' } as ChatMessage];
    const before = ledger.measured;
    const next = selectHistoryWindow({ history: grown, budgetTokens: 5000, counter: ledger.counter, ledger });
    expect(ledger.continuity).toBe('identity');
    expect(ledger.measured - before).toBe(1);
    expect(next.messages[next.messages.length - 1]).toBe(grown[grown.length - 1]);
    const repeat = selectHistoryWindow({ history: grown, budgetTokens: 5000, counter: ledger.counter, ledger });
    expect(ledger.measured - before).toBe(1);
    expect(repeat).toEqual(next);
    expect(repeat.messages).not.toBe(next.messages);
  });

  it('recognises a history rebuilt from JSON and gives the same window without tokenizing again', () => {
    const own = freshCounter();
    const messages = history(300);
    const ledger = new HistoryLedger(own);
    const first = selectHistoryWindow({ history: messages, budgetTokens: 4000, counter: own, ledger });
    const tokenized = own.tokenizedTotals().texts;
    const rebuilt = JSON.parse(JSON.stringify([...messages, { role: 'user', content: 'and now?' }])) as ChatMessage[];
    const next = selectHistoryWindow({ history: rebuilt, budgetTokens: 4000, counter: own, ledger });
    expect(ledger.continuity).toBe('fingerprint');
    expect(own.tokenizedTotals().texts - tokenized).toBe(1);
    expect(next.tokens).toBe(own.countMessages(next.messages));
    expect(next.fromIndex).toBeGreaterThanOrEqual(first.fromIndex);
  });

  it('never sends orphan tool results or dangling calls, and reports them with the reason', () => {
    const messages: ChatMessage[] = [
      { role: 'tool', tool_call_id: 'stray', content: 'orphan' },
      ...turn(1),
      { role: 'assistant', content: null, tool_calls: [{ id: 'fin', type: 'function', function: { name: 'finish', arguments: '{}' } }] },
    ];
    const window = selectHistoryWindow({ history: messages, budgetTokens: 10_000, counter });
    expect(findPayloadProblems(window.messages)).toEqual([]);
    expect(window.reductions.map((record) => [record.from, record.to, record.action])).toEqual([
      [0, 1, 'dropped'],
      [5, 6, 'dropped'],
    ]);
    expect(window.reductions[0]!.reason).toMatch(/orphan/);
    expect(window.reductions[1]!.reason).toMatch(/without result \(fin\)/);
  });

  it('truncates an over-budget tool output of the current turn head + tail instead of dropping the turn', () => {
    const huge = Array.from({ length: 20_000 }, (_, index) => `log line ${index} status ok`).join('\n');
    const messages = [...history(3), ...turn(99, huge).slice(0, 3)];
    const window = selectHistoryWindow({ history: messages, budgetTokens: 3000, counter });
    expect(window.tokens).toBeLessThanOrEqual(3000);
    expect(window.tokens).toBe(counter.countMessages(window.messages));
    const last = window.messages[window.messages.length - 1]!;
    expect(last.role).toBe('tool');
    expect(last.content).toContain('log line 0 status ok');
    expect(last.content).toContain('log line 19999 status ok');
    expect(last.content).toMatch(/lines \([\d,]+ bytes\) elided/);
    expect(messages[messages.length - 1]!.content).toBe(huge);
    expect(window.reductions).toContainEqual(expect.objectContaining({ action: 'truncated', from: messages.length - 1, to: messages.length }));
    expect(findPayloadProblems(window.messages)).toEqual([]);
  });

  it('keeps the newest user message, truncated with a marker, when it alone exceeds the budget', () => {
    const question = `Please review: ${'lorem ipsum dolor sit amet '.repeat(2000)} thanks`;
    const messages: ChatMessage[] = [...history(2), { role: 'user', content: question }];
    const window = selectHistoryWindow({ history: messages, budgetTokens: 500, counter });
    expect(window.messages).toHaveLength(1);
    expect(window.messages[0]!.role).toBe('user');
    expect(window.messages[0]!.content).toMatch(/^Please review:[\s\S]*elided[\s\S]*thanks$/);
    expect(window.tokens).toBeLessThanOrEqual(500);
    expect(window.reductions).toContainEqual(expect.objectContaining({ action: 'truncated', from: 8 }));
  });

  it('never mutates the history', () => {
    const messages = history(20);
    const snapshot = JSON.stringify(messages);
    Object.freeze(messages);
    messages.forEach((message) => Object.freeze(message));
    selectHistoryWindow({ history: messages, budgetTokens: 300, counter });
    expect(JSON.stringify(messages)).toBe(snapshot);
  });
});
