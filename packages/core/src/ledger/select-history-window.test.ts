import type { ChatMessage, ToolMessage } from '../contracts/chat-message';
import { findPayloadProblems } from '../messages/find-payload-problems';
import { loadConversations } from '../testing/load-conversations';
import { GptTokenizerEncoder } from '../token-counting/bpe-encoder';
import { BpeTokenCounter, SharedCountCaches } from '../token-counting/bpe-token-counter';
import { createTokenCounter } from '../token-counting/create-token-counter';
import { utf8ByteLength as utf8Bytes } from '../token-counting/text-parts';
import { HistoryLedger } from './history-ledger';
import { MIN_TRUNCATED_OUTPUT_TOKENS, selectHistoryWindow } from './select-history-window';

const counter = createTokenCounter({ model: 'gpt-4o' });
let callId = 0;

function turn(index: number, output = `result ${index}: ${'data '.repeat(40)}`): ChatMessage[] {
  const id = `call_${++callId}`;
  return [
    { role: 'user', content: `question ${index}: please look up item ${index}` },
    {
      role: 'assistant',
      content: null,
      tool_calls: [{ id, type: 'function', function: { name: 'lookup', arguments: `{"item":${index}}` } }],
    },
    { role: 'tool', tool_call_id: id, content: output },
    { role: 'assistant', content: `Item ${index} is fine.` },
  ];
}

function history(turns: number): ChatMessage[] {
  return Array.from({ length: turns }, (_, index) => turn(index)).flat();
}

function freshCounter(): BpeTokenCounter {
  return new BpeTokenCounter(new GptTokenizerEncoder('o200k_base'), new SharedCountCaches(), 'gpt-4o', {
    encoding: 'o200k_base',
    approximate: false,
  });
}

/** One agent step: an assistant message calling `calls` tools (long arguments) and their results. */
function step(index: number, calls = 1): ChatMessage[] {
  const ids = Array.from({ length: calls }, () => `call_${++callId}`);
  return [
    {
      role: 'assistant',
      content: `Step ${index}: ${'I will inspect the next file. '.repeat(8)}`,
      tool_calls: ids.map((id) => ({
        id,
        type: 'function' as const,
        function: { name: 'read_file', arguments: `{"path":"src/module-${index}.ts"}` },
      })),
    },
    ...ids.map((id, position): ChatMessage => ({
      role: 'tool',
      tool_call_id: id,
      content: Array.from(
        { length: 300 },
        (_, line) => `module ${index}.${position} line ${line}: const value = ${line};`,
      ).join('\n'),
    })),
  ];
}

/** Steps 0..count-1 of one turn; every third step calls two tools at once. */
function longTurn(count: number): { messages: ChatMessage[]; groups: Array<{ from: number; to: number }> } {
  const messages: ChatMessage[] = [{ role: 'user', content: 'Fix the failing build, please.' }];
  const groups: Array<{ from: number; to: number }> = [];
  for (let index = 0; index < count; index++) {
    const from = messages.length;
    messages.push(...step(index, index % 3 === 2 ? 2 : 1));
    groups.push({ from, to: messages.length });
  }
  return { messages, groups };
}

/**
 * The number of newest groups the selection can keep: their non-tool messages whole, each tool output at its least
 * share.
 */
function newestGroupsThatFit(
  messages: ChatMessage[],
  groups: Array<{ from: number; to: number }>,
  userIndex: number,
  budget: number,
): number {
  let floor = counter.countMessage(messages[userIndex]!);
  let count = 0;
  for (let position = groups.length - 1; position >= 0; position--) {
    const { from, to } = groups[position]!;
    for (let index = from; index < to; index++)
      floor += messages[index]!.role === 'tool' ? MIN_TRUNCATED_OUTPUT_TOKENS : counter.countMessage(messages[index]!);
    if (floor > budget) break;
    count++;
  }
  return count;
}

describe('selectHistoryWindow', () => {
  it('keeps the newest whole groups that fit and reports the rest as one dropped range', () => {
    const messages = history(50);
    const window = selectHistoryWindow({ history: messages, budgetTokens: 1000, counter });
    expect(window.tokens).toBeLessThanOrEqual(1000);
    expect(window.tokens).toBe(counter.countMessages(window.messages));
    expect(window.messages).toEqual(messages.slice(window.fromIndex));
    expect(findPayloadProblems(window.messages)).toEqual([]);
    expect(window.reductions).toEqual([
      expect.objectContaining({
        action: 'dropped',
        from: 0,
        to: window.fromIndex,
        messages: window.fromIndex,
        recoverableFrom: 'history',
      }),
    ]);
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
      {
        role: 'assistant',
        content: null,
        tool_calls: [{ id: 'fin', type: 'function', function: { name: 'finish', arguments: '{}' } }],
      },
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
    expect(window.reductions).toContainEqual(
      expect.objectContaining({ action: 'truncated', from: messages.length - 1, to: messages.length }),
    );
    expect(findPayloadProblems(window.messages)).toEqual([]);
  });

  it('names the ref of a cut output held whole behind one, and where its elided part lies in it', () => {
    const huge = Array.from({ length: 20_000 }, (_, index) => `log line ${index} status ok`).join('\n');
    const ref = { id: `to_${'ab'.repeat(16)}`, byte_size: utf8Bytes(huge) };
    const cutTurn = turn(99, huge).slice(0, 3);
    cutTurn[2] = { ...(cutTurn[2] as ToolMessage), output_ref: ref };
    const messages = [...history(3), ...cutTurn];
    const window = selectHistoryWindow({ history: messages, budgetTokens: 3000, counter });
    expect(window.tokens).toBeLessThanOrEqual(3000);
    const shown = window.messages[window.messages.length - 1]!.content as string;
    const marker = new RegExp(
      String.raw`\n\[\.\.\. [\d,]+ lines \([\d,]+ bytes\) elided: ref=(to_\w+) from line (\d+) char (` +
        String.raw`\d+) to line (\d+) char (\d+) \.\.\.\]\n`,
    ).exec(shown)!;
    expect(marker[1]).toBe(ref.id);
    const at = (line: number, char: number): number =>
      huge
        .split('\n')
        .slice(0, line - 1)
        .reduce((sum, text) => sum + text.length + 1, 0) + char;
    const from = at(Number(marker[2]), Number(marker[3]));
    const to = at(Number(marker[4]), Number(marker[5]));
    expect(shown.slice(0, marker.index)).toBe(huge.slice(0, from));
    expect(shown.slice(marker.index + marker[0].length)).toBe(huge.slice(to));
    expect(window.reductions).toContainEqual(
      expect.objectContaining({ action: 'truncated', recoverableFrom: 'tool-output-cache', refs: [ref.id] }),
    );
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

  describe('a current turn too long to fit even with its outputs truncated', () => {
    it('keeps the newest steps that fit, leaving the older steps out oldest first as one reported range', () => {
      const { messages: turnMessages, groups } = longTurn(30);
      const older = history(3);
      const messages = [...older, ...turnMessages];
      const userIndex = older.length;
      const shifted = groups.map(({ from, to }) => ({ from: from + userIndex, to: to + userIndex }));
      const budget = 3000;
      const keep = newestGroupsThatFit(messages, shifted, userIndex, budget);
      expect(keep).toBeGreaterThan(1);
      expect(keep).toBeLessThan(groups.length);
      const firstKept = shifted[shifted.length - keep]!.from;

      const window = selectHistoryWindow({ history: messages, budgetTokens: budget, counter });

      expect(window.tokens).toBeLessThanOrEqual(budget);
      expect(window.tokens).toBe(counter.countMessages(window.messages));
      expect(findPayloadProblems(window.messages)).toEqual([]);
      // Older turns fill what room is left, as before; the current turn starts at its user message.
      const userAt = userIndex - window.fromIndex;
      expect(window.messages.slice(0, userAt)).toEqual(messages.slice(window.fromIndex, userIndex));
      expect(window.messages[userAt]).toBe(messages[userIndex]);
      expect(window.messages).toHaveLength(userAt + 1 + messages.length - firstKept);
      const dropped = window.reductions.filter((record) => record.action === 'dropped');
      expect(dropped).toEqual([
        expect.objectContaining({ from: 0, to: window.fromIndex, messages: window.fromIndex }),
        {
          action: 'dropped',
          from: userIndex + 1,
          to: firstKept,
          messages: firstKept - userIndex - 1,
          tokensAfter: 0,
          reason: expect.stringMatching(/older step of the current turn/),
          recoverableFrom: 'history',
          cause: 'turn-step',
        },
      ]);
      expect(window.droppedMessages).toBe(window.fromIndex + firstKept - userIndex - 1);
      // Kept steps are whole: each kept assistant message is followed by exactly its results, in place.
      const kept = window.messages.slice(userAt + 1);
      for (let position = 0; position < kept.length; position++) {
        const message = kept[position]!;
        const original = messages[firstKept + position]!;
        if (message.role === 'tool') {
          expect(original.role).toBe('tool');
          expect(message.tool_call_id).toBe((original as typeof message).tool_call_id);
        } else expect(message).toBe(original);
      }
      const truncated = window.reductions.filter((record) => record.action === 'truncated');
      expect(truncated.length).toBeGreaterThan(0);
      for (const record of truncated) {
        expect(record.from).toBeGreaterThanOrEqual(firstKept);
        expect(messages[record.from]!.role).toBe('tool');
      }
    });

    it('never splits a step that called several tools at once from its results', () => {
      const { messages, groups } = longTurn(12);
      let partial = 0;
      for (let budget = 600; budget <= 4000; budget += 97) {
        const window = selectHistoryWindow({ history: messages, budgetTokens: budget, counter });
        expect(findPayloadProblems(window.messages)).toEqual([]);
        expect(window.tokens).toBeLessThanOrEqual(budget);
        const droppedStep = window.reductions.find((record) => record.action === 'dropped');
        if (!droppedStep) continue;
        expect(droppedStep.from).toBe(1);
        expect(groups.some((group) => group.from === droppedStep.to) || droppedStep.to === messages.length).toBe(true);
        expect(window.messages.length).toBe(1 + messages.length - droppedStep.to);
        if (droppedStep.to < messages.length) partial++;
      }
      expect(partial).toBeGreaterThan(3);
    });

    it('keeps only the newest user message when not even the newest step fits, reporting both ranges', () => {
      const { messages } = longTurn(5);
      const userTokens = counter.countMessage(messages[0]!);
      const window = selectHistoryWindow({ history: messages, budgetTokens: userTokens + 20, counter });
      expect(window.messages).toEqual([messages[0]]);
      const newestStart = messages.length - 2;
      expect(window.reductions.map((record) => [record.from, record.to, record.action])).toEqual([
        [1, newestStart, 'dropped'],
        [newestStart, messages.length, 'dropped'],
      ]);
      expect(window.reductions[0]!.reason).toMatch(/older step of the current turn/);
    });

    it('touches only the current turn, however long the history before it', () => {
      const { messages: turnMessages } = longTurn(30);
      const messages = [...history(1500), ...turnMessages];
      const ledger = new HistoryLedger(freshCounter());
      const window = selectHistoryWindow({ history: messages, budgetTokens: 3000, counter: ledger.counter, ledger });
      const kept = window.messages.length;
      expect(window.reductions).toContainEqual(
        expect.objectContaining({ action: 'dropped', reason: expect.stringMatching(/older step of the current turn/) }),
      );
      expect(kept).toBeLessThan(turnMessages.length);
      expect(ledger.measured).toBeLessThanOrEqual(turnMessages.length + kept + 4);
    });

    it('keeps recent steps on every call of the bundled OpenHands run ponyc-4595', () => {
      const record = loadConversations('openhands-multi-swe-bench').find((candidate) =>
        candidate.id.endsWith('ponyc-4595'),
      )!;
      const all = record.messages.slice(1) as ChatMessage[];
      const ledger = new HistoryLedger(counter);
      let leftOut = 0;
      for (let end = 2; end <= all.length; end++) {
        if (all[end]?.role !== 'assistant') continue;
        const messages = all.slice(0, end);
        const window = selectHistoryWindow({ history: messages, budgetTokens: 3000, counter, ledger });
        expect(window.tokens).toBeLessThanOrEqual(3000);
        expect(findPayloadProblems(window.messages)).toEqual([]);
        expect(window.messages[0]).toBe(messages[0]);
        const dropped = window.reductions.filter((reduction) => reduction.action === 'dropped');
        if (dropped.length === 0) continue;
        leftOut++;
        expect(dropped).toEqual([
          expect.objectContaining({ from: 1, reason: expect.stringMatching(/older step of the current turn/) }),
        ]);
        expect(window.messages.length).toBe(1 + messages.length - dropped[0]!.to);
        expect(window.messages.length).toBeGreaterThan(3);
      }
      expect(leftOut).toBeGreaterThan(0);
    });
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
