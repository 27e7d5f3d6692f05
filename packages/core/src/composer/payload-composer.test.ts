import fc from 'fast-check';

import { testComposer } from '../__fixtures__/test-composer';
import { computeBudget } from '../budget/compute-budget';
import type { ChatMessage } from '../contracts/chat-message';
import type { ReductionRecord } from '../contracts/llm-payload';
import type { CtxkitEventName } from '../events/ctxkit-events';
import { CtxkitEventBus } from '../events/event-bus';
import { findPayloadProblems } from '../messages/find-payload-problems';
import { groupEndingAt } from '../messages/group-tool-calls';
import { arbHistory } from '../testing/arbitraries';
import { createTokenCounter } from '../token-counting/create-token-counter';
import type { MemoryBlock } from './memory-block';
import { type ComposeRequest, PayloadComposer } from './payload-composer';

const counter = createTokenCounter({ model: 'gpt-4o' });

function composer(maxContextTokens: number, events = new CtxkitEventBus()): PayloadComposer {
  return testComposer(maxContextTokens, counter, events);
}

/** The request of the turn that ends at `end` (two messages a turn), with `fields` of the test. */
function turnRequest(history: ChatMessage[], end: number, fields: Partial<ComposeRequest> = {}): ComposeRequest {
  return { systemPrompt: 'S', history: history.slice(0, end), tools: [], turn: end / 2, ...fields };
}

function turns(count: number, words = 40): ChatMessage[] {
  const history: ChatMessage[] = [];
  for (let n = 0; n < count; n++) {
    history.push({ role: 'user', content: `Question ${n}: ${'what about the weather in Lisbon '.repeat(words / 6)}` });
    history.push({ role: 'assistant', content: `Answer ${n}: ${'it is sunny along the coast '.repeat(words / 6)}` });
  }
  return history;
}

const summary = (content: string, until: number, extra: Partial<MemoryBlock> = {}): MemoryBlock => ({
  name: 'summary',
  content,
  placement: 'after-system',
  omitWhenWindowCovers: true,
  covers: { until, action: 'summarized', recoverableFrom: 'summary', reason: 'folded into the summary' },
  ...extra,
});

describe('PayloadComposer', () => {
  describe('#compose', () => {
    it('refuses a malformed message, also one appended to a history it already checked', () => {
      const history = turns(3);
      const subject = composer(4000);
      subject.compose({ systemPrompt: 'sys', history, tools: [], turn: 3 });
      const grown = [...history, { role: 'user', content: 'book it', tool_calls: [] } as unknown as ChatMessage];
      expect(() => subject.compose({ systemPrompt: 'sys', history: grown, tools: [], turn: 4 })).toThrow(
        expect.objectContaining({ code: 'CTXKIT_HISTORY_INVALID' }),
      );
      // Still refused when sent again: a refused history is never taken as checked.
      expect(() => subject.compose({ systemPrompt: 'sys', history: grown, tools: [], turn: 4 })).toThrow(
        expect.objectContaining({ code: 'CTXKIT_HISTORY_INVALID' }),
      );
      expect(() =>
        subject.compose({ systemPrompt: 'sys', history: 'nope' as unknown as ChatMessage[], tools: [], turn: 1 }),
      ).toThrow(expect.objectContaining({ code: 'CTXKIT_HISTORY_INVALID' }));
    });

    it('fills the budget with the newest history when there is no memory, and reports the drop', () => {
      const events: CtxkitEventName[] = [];
      const bus = new CtxkitEventBus();
      bus.on('history-trim', () => events.push('history-trim'));
      bus.on('payload-composed', () => events.push('payload-composed'));
      const history = turns(40);
      const { payload, window } = composer(1000, bus).compose({ systemPrompt: 'sys', history, tools: [], turn: 40 });
      expect(payload.stats.output_tokens).toBeLessThanOrEqual(payload.stats.budget.available);
      expect(payload.messages[payload.messages.length - 1]).toBe(history[history.length - 1]);
      const next = groupEndingAt(history, window.fromIndex);
      expect(counter.countMessages(history.slice(next.start, next.end))).toBeGreaterThan(
        payload.stats.budget.remaining,
      );
      expect(payload.stats.reductions[0]).toMatchObject({
        action: 'dropped',
        from: 0,
        to: window.fromIndex,
        recoverableFrom: 'history',
      });
      expect(events).toEqual(['history-trim', 'payload-composed']);
    });

    it('adds a memory block to the newest history that fits and reports what it covers as summarized', () => {
      const history = turns(40);
      const composed = composer(1000).compose({
        systemPrompt: 'sys',
        history,
        tools: [],
        turn: 40,
        memory: [summary('Earlier: the user asked about Lisbon and Porto.', 30)],
      });
      const { payload, window } = composed;
      expect(composed.memory).toEqual(['sent']);
      expect(payload.messages[1]!.content).toContain('Earlier: the user asked');
      expect(payload.stats.sections.memory).toBeGreaterThan(0);
      expect(payload.stats.output_tokens).toBeLessThanOrEqual(payload.stats.budget.available);
      expect(payload.stats.output_tokens / payload.stats.budget.available).toBeGreaterThan(0.85);
      expect(payload.stats.reductions).toEqual([
        expect.objectContaining({
          action: 'summarized',
          from: 0,
          to: Math.min(30, window.fromIndex),
          recoverableFrom: 'summary',
        }),
        ...(window.fromIndex > 30
          ? [expect.objectContaining({ action: 'dropped', from: 30, to: window.fromIndex })]
          : []),
      ]);
    });

    it('shortens a block larger than its share with its own shrink, reports it, and gives the rest to history', () => {
      const long = Array.from({ length: 200 }, (_, n) => `fact ${n}: the code is ZX${n}Q`).join('\n');
      const shrink = jest.fn((maxTokens: number) =>
        long
          .split('\n')
          .slice(0, Math.floor(maxTokens / 12))
          .join('\n'),
      );
      const composed = composer(1000).compose({
        systemPrompt: 'sys',
        history: turns(40),
        tools: [],
        turn: 1,
        memory: [summary(long, 60, { shrink })],
        memoryShare: 0.3,
      });
      expect(composed.memory).toEqual(['shortened']);
      expect(shrink).toHaveBeenCalled();
      expect(composed.payload.stats.sections.memory).toBeLessThanOrEqual(composed.memoryAllowanceTokens);
      expect(composed.payload.stats.reductions).toContainEqual(
        expect.objectContaining({
          action: 'truncated',
          messages: 0,
          reason: 'summary block shortened to its share of the budget',
        }),
      );
      expect(composed.payload.stats.output_tokens).toBeLessThanOrEqual(composed.payload.stats.budget.available);
    });

    it('gives the newest user message precedence: the block is left out rather than a budget error', () => {
      const history: ChatMessage[] = [
        ...turns(3),
        { role: 'user', content: 'Check these codes: ' + 'code '.repeat(600) },
      ];
      const composed = composer(800).compose({
        systemPrompt: 'sys',
        history,
        tools: [],
        turn: 4,
        memory: [summary('A summary of the earlier turns. '.repeat(20), 6)],
      });
      expect(['shortened', 'left-out']).toContain(composed.memory[0]);
      expect(composed.payload.messages[composed.payload.messages.length - 1]).toBe(history[history.length - 1]);
      expect(composed.payload.stats.output_tokens).toBeLessThanOrEqual(composed.payload.stats.budget.available);
    });

    it('leaves out a block that only repeats history the window holds whole', () => {
      const history = turns(3);
      const composed = composer(8000).compose({
        systemPrompt: 'sys',
        history,
        tools: [],
        turn: 3,
        memory: [summary('About Lisbon.', 2)],
      });
      expect(composed.memory).toEqual(['redundant']);
      expect(composed.payload.messages.slice(1)).toEqual(history);
      expect(composed.payload.stats.reductions).toEqual([]);
    });

    it('lets a shortened block take what is left when the history fits whole beside it', () => {
      const history = turns(2);
      const state = Array.from({ length: 60 }, (_, n) => `"field_${n}": "value ${n}"`).join(',\n');
      const composed = composer(2000).compose({
        systemPrompt: 'sys',
        history,
        tools: [],
        turn: 2,
        memory: [{ name: 'entity state', content: state }],
        memoryShare: 0.1,
      });
      expect(composed.memory).toEqual(['sent']);
      expect(composed.payload.messages.slice(2)).toEqual(history);
    });

    it('sends nothing verbatim before startIndex and reports it, relabeled where a block covers it', () => {
      const history = turns(5);
      const composed = composer(8000).compose({
        systemPrompt: 'sys',
        history,
        tools: [],
        turn: 5,
        startIndex: 8,
        startReason: 'older than the last turn (lean mode)',
        memory: [
          {
            name: 'entity state',
            content: '{"city": "Lisbon"}',
            covers: {
              until: 5,
              action: 'dropped',
              recoverableFrom: 'entity-state',
              reason: 'its values are in the entity state',
            },
          },
        ],
      });
      expect(composed.payload.messages.slice(2)).toEqual(history.slice(8));
      expect(composed.payload.stats.reductions).toEqual([
        expect.objectContaining({ action: 'dropped', from: 0, to: 5, recoverableFrom: 'entity-state' }),
        expect.objectContaining({
          action: 'dropped',
          from: 5,
          to: 8,
          recoverableFrom: 'history',
          reason: 'older than the last turn (lean mode)',
        }),
      ]);
    });

    it('collapses older tool results in the payload when asked, leaving the history untouched', () => {
      const log = Array.from({ length: 300 }, (_, n) => `line ${n}: compiling module ${n}`).join('\n');
      const history: ChatMessage[] = [
        { role: 'user', content: 'Build it.' },
        {
          role: 'assistant',
          content: null,
          tool_calls: [
            { id: 'c1', type: 'function', function: { name: 'execute_bash', arguments: '{"command":"make"}' } },
          ],
        },
        { role: 'tool', tool_call_id: 'c1', content: log },
        {
          role: 'assistant',
          content: null,
          tool_calls: [
            { id: 'c2', type: 'function', function: { name: 'execute_bash', arguments: '{"command":"make test"}' } },
          ],
        },
        { role: 'tool', tool_call_id: 'c2', content: 'ok' },
      ];
      const before = JSON.stringify(history);
      const { payload } = composer(16000).compose({
        systemPrompt: 'sys',
        history,
        tools: [],
        turn: 1,
        collapseOlderToolResults: true,
      });
      expect(JSON.stringify(history)).toBe(before);
      expect(String(payload.messages[3]!.content)).toMatch(/collapsed/);
      expect(payload.messages[5]).toBe(history[4]);
      expect(payload.stats.reductions).toContainEqual(expect.objectContaining({ action: 'trimmed', from: 2, to: 3 }));
      expect(findPayloadProblems(payload.messages)).toEqual([]);
    });

    it(
      'cuts back to cutBackRatio of the room once the history overflows, then holds the window start while turns ' +
        'append',
      () => {
        const compose = composer(1200);
        const history = turns(40);
        const starts: number[] = [];
        const shares: number[] = [];
        let previous: ChatMessage[] | undefined;
        for (let end = 2; end <= history.length; end += 2) {
          const { payload, window, roomTokens } = compose.compose(
            turnRequest(history, end, {
              cutBackRatio: 0.6,
            }),
          );
          starts.push(window.fromIndex);
          shares.push(window.tokens / roomTokens);
          expect(payload.stats.output_tokens).toBeLessThanOrEqual(payload.stats.budget.available);
          expect(findPayloadProblems(payload.messages)).toEqual([]);
          const dropped = payload.stats.reductions
            .filter((record) => record.action === 'dropped')
            .reduce((sum, record) => sum + record.messages, 0);
          expect(dropped).toBe(window.fromIndex);
          if (previous && window.fromIndex === starts[starts.length - 2]) {
            // the start held: the previous payload is this payload's beginning, message for message
            expect(payload.messages.slice(0, previous.length)).toEqual(previous);
          }
          previous = payload.messages;
        }
        const cuts = starts.filter((start, index) => index > 0 && start !== starts[index - 1]).length;
        const overflowing = starts.filter((start) => start > 0).length;
        expect(cuts).toBeGreaterThan(1);
        expect(cuts).toBeLessThan(overflowing / 2);
        // right after a cut the window holds at most the ratio's share of the room
        starts.forEach((start, index) => {
          if (index > 0 && start !== starts[index - 1] && start > 0) expect(shares[index]).toBeLessThanOrEqual(0.6);
        });
      },
    );

    it(
      'with cutBackRatio below 1, holds a cut window start when the history would fit whole again, until a cut ' +
        'would keep all of it',
      () => {
        const compose = composer(1200);
        const request = { systemPrompt: 'S', tools: [], turn: 9, cutBackRatio: 0.6 };
        const earlier = turns(8);
        const long: ChatMessage = {
          role: 'user',
          content: `Here is the log: ${'the build failed again at the same step '.repeat(120)}`,
        };
        const cut = compose.compose({ ...request, history: [...earlier, long] });
        const start = cut.window.fromIndex;
        expect(start).toBeGreaterThan(0);
        // The long message is shortened (as a trimmed output would be): the whole history fits again ...
        const shortened = [...earlier, { role: 'user' as const, content: 'Here is the log: the build failed.' }];
        expect(composer(1200).compose({ ...request, history: shortened }).window.fromIndex).toBe(0);
        // ... but a composer that cut keeps its start, so the payload begins as the previous one did.
        const held = compose.compose({ ...request, history: shortened });
        expect(held.window.fromIndex).toBe(start);
        expect(held.payload.messages.slice(0, -1)).toEqual(cut.payload.messages.slice(0, -1));
        expect(held.payload.stats.reductions).toContainEqual(
          expect.objectContaining({ action: 'dropped', from: 0, to: start }),
        );
        expect(held.payload.stats.output_tokens).toBeLessThanOrEqual(held.payload.stats.budget.available);
        // Older messages that became short enough for a cut to keep everything: the start is let go.
        const small = shortened.map((message, index) =>
          index < start
            ? { ...message, content: `${message.role === 'user' ? 'Question' : 'Answer'} ${index}.` }
            : message,
        );
        const whole = compose.compose({ ...request, history: small });
        expect(whole.window.fromIndex).toBe(0);
        expect(whole.payload.stats.reductions.filter((record) => record.action === 'dropped')).toEqual([]);
      },
    );

    it(
      'with cutBackRatio below 1, sends the earlier output cuts of the current turn again while the turn grows, ' +
        'and cuts anew within the ratio when they no longer fit',
      () => {
        // One long coding turn: every step reads a large file, so the turn's outputs must be cut.
        const history: ChatMessage[] = [{ role: 'user', content: 'Fix the failing build.' }];
        const step = (n: number, lines: number): ChatMessage[] => [
          {
            role: 'assistant',
            content: '',
            tool_calls: [
              {
                id: `call_${n}`,
                type: 'function',
                function: { name: 'read_file', arguments: `{"path":"src/f${n}.go"}` },
              },
            ],
          },
          {
            role: 'tool',
            tool_call_id: `call_${n}`,
            content: Array.from(
              { length: lines },
              (_, line) => `${n}:${line} func handler${line}() error { return nil }`,
            ).join('\n'),
          },
        ];
        const held = composer(4000);
        const plain = composer(4000);
        let previous: ChatMessage[] | undefined;
        let previousPlain: ChatMessage[] | undefined;
        let kept = 0;
        let recut = 0;
        let plainRecut = 0;
        for (let n = 0; n < 24; n++) {
          history.push(...step(n, n % 3 === 0 ? 400 : 8));
          const request = { systemPrompt: 'S', history: history.slice(), tools: [], turn: 1 };
          const { payload, roomTokens } = held.compose({ ...request, cutBackRatio: 0.6 });
          const reference = plain.compose(request).payload;
          expect(payload.stats.output_tokens).toBeLessThanOrEqual(payload.stats.budget.available);
          expect(findPayloadProblems(payload.messages)).toEqual([]);
          const outputs = payload.messages.filter((message) => message.role === 'tool');
          // the newest output is never starved to keep old cuts: whole, or at least an even share of the
          // outputs' room (of its cut-back share right after a fresh cut), less the truncation marker's slack
          const newest = history[history.length - 1]!;
          const outputRoom =
            roomTokens - counter.countMessages(payload.messages.slice(1).filter((message) => message.role !== 'tool'));
          expect(counter.countMessage(outputs[outputs.length - 1]!)).toBeGreaterThanOrEqual(
            Math.min(counter.countMessage(newest), Math.floor((0.6 * outputRoom) / outputs.length) - 64),
          );
          if (previous && payload.stats.reductions.some((record) => record.action === 'truncated')) {
            if (previous.every((message, index) => payload.messages[index] === message)) kept++;
            else recut++;
          }
          if (
            previousPlain &&
            reference.stats.reductions.some((record) => record.action === 'truncated') &&
            !previousPlain.every(
              (message, index) => JSON.stringify(reference.messages[index]) === JSON.stringify(message),
            )
          )
            plainRecut++;
          previous = payload.messages;
          previousPlain = reference.messages;
        }
        // held: most calls only append to the previous payload; cutting the room anew on each call changes the early
        // outputs every time
        expect(kept).toBeGreaterThan(recut * 2);
        expect(recut).toBeGreaterThan(0);
        expect(plainRecut).toBeGreaterThan(kept);
      },
    );

    it(
      'with keepFirstShare, keeps the first groups of the conversation in front of a cut window and holds them ' +
        'while turns append',
      () => {
        const compose = composer(1200);
        const history = turns(40);
        let heads = 0;
        let previousHead: ChatMessage[] | undefined;
        for (let end = 2; end <= history.length; end += 2) {
          const { payload, window, roomTokens } = compose.compose(
            turnRequest(history, end, {
              cutBackRatio: 0.6,
              keepFirstShare: 0.3,
            }),
          );
          expect(payload.stats.output_tokens).toBeLessThanOrEqual(payload.stats.budget.available);
          expect(findPayloadProblems(payload.messages)).toEqual([]);
          const dropped = payload.stats.reductions.filter((record) => record.action === 'dropped');
          if (dropped.length === 0) continue;
          heads++;
          // the first turns stay right after the system prompt, within their share; the middle is reported dropped
          const headEnd = dropped[0]!.from;
          expect(headEnd).toBeGreaterThan(0);
          expect(payload.messages.slice(1, 1 + headEnd)).toEqual(history.slice(0, headEnd));
          expect(counter.countMessages(history.slice(0, headEnd))).toBeLessThanOrEqual(roomTokens * 0.3);
          expect(window.fromIndex).toBe(0);
          expect(dropped.reduce((sum, record) => sum + record.messages, 0) + payload.messages.length - 1).toBe(end);
          // the newest turn is always there
          expect(payload.messages[payload.messages.length - 1]).toBe(history[end - 1]);
          if (previousHead) expect(payload.messages.slice(1, 1 + headEnd)).toEqual(previousHead);
          previousHead = payload.messages.slice(1, 1 + headEnd);
        }
        expect(heads).toBeGreaterThan(10);
      },
    );

    it(
      'asks keptReductions once the window is chosen, with the kept head and the window as ranges, and reports ' +
        'what it returns',
      () => {
        const compose = composer(1200);
        const history = turns(40);
        let cut = 0;
        for (let end = 2; end <= history.length; end += 2) {
          const asked: Array<ReadonlyArray<{ from: number; to: number }>> = [];
          const { payload, window } = compose.compose(
            turnRequest(history, end, {
              cutBackRatio: 0.6,
              keepFirstShare: 0.3,
              // One record per kept range: what a strategy reports of the messages it sends in another form.
              keptReductions: (kept) => {
                asked.push(kept);
                return kept.map(({ from, to }) => ({
                  action: 'truncated' as const,
                  from,
                  to,
                  messages: to - from,
                  reason: 'shown shorter',
                  recoverableFrom: 'history' as const,
                }));
              },
            }),
          );
          expect(asked).toHaveLength(1);
          const kept = asked[0]!;
          // The ranges are the history the payload sends, in order, and nothing the payload leaves out.
          const sent = new Set<ChatMessage>(payload.messages);
          const inRanges = kept.flatMap(({ from, to }) => history.slice(from, to));
          expect(inRanges).toEqual(history.slice(0, end).filter((message) => sent.has(message)));
          expect(inRanges).toHaveLength(window.messages.length);
          const reported = payload.stats.reductions.filter((record) => record.reason === 'shown shorter');
          expect(reported.map(({ from, to }) => ({ from, to }))).toEqual(kept);
          if (kept.length > 1) cut++;
        }
        // Heads kept in front of a cut window: two ranges with the dropped middle between them.
        expect(cut).toBeGreaterThan(10);
      },
    );

    it('keepFirstShare gives way to a current turn that needs the room', () => {
      const compose = composer(1200);
      const history = turns(20);
      compose.compose({ systemPrompt: 'S', history, tools: [], turn: 20, cutBackRatio: 0.6, keepFirstShare: 0.4 });
      const big: ChatMessage = {
        role: 'user',
        content: `Please read: ${'the quick brown fox jumps over the lazy dog '.repeat(80)}`,
      };
      const { payload, roomTokens } = compose.compose({
        systemPrompt: 'S',
        history: [...history, big],
        tools: [],
        turn: 21,
        cutBackRatio: 0.6,
        keepFirstShare: 0.4,
      });
      expect(counter.countMessage(big)).toBeGreaterThan(roomTokens * 0.6);
      // what is kept in front of the window leaves the new turn its room
      const headEnd = payload.stats.reductions.find((record) => record.action === 'dropped')!.from;
      expect(counter.countMessages(history.slice(0, headEnd))).toBeLessThanOrEqual(
        roomTokens - counter.countMessage(big),
      );
      expect(payload.messages[payload.messages.length - 1]).toBe(big);
      expect(payload.stats.output_tokens).toBeLessThanOrEqual(payload.stats.budget.available);
    });

    it(
      'with cutBackRatio below 1, sends a state block as the previous payload had it while the window holds every ' +
        'message it has not read, and the new one at the next cut',
      () => {
        const compose = composer(1500);
        const history = turns(40);
        // A state that grows with every turn read; `holds` accepts any earlier state of the same run.
        const state = (end: number, grown = true): MemoryBlock => ({
          name: 'state',
          content: `State after ${end} messages: ${'value '.repeat(10 + end / 2)}`,
          covers: { until: end, action: 'dropped', recoverableFrom: 'entity-state', reason: 'in the state' },
          holds: () => grown,
        });
        let previous: ReturnType<typeof compose.compose> | undefined;
        let held = 0;
        let refreshedAtCut = 0;
        for (let end = 2; end <= history.length; end += 2) {
          const current = state(end - 1);
          const composed = compose.compose(
            turnRequest(history, end, {
              cutBackRatio: 0.5,
              memory: [current],
            }),
          );
          const { payload, window } = composed;
          expect(payload.stats.output_tokens).toBeLessThanOrEqual(payload.stats.budget.available);
          const block = payload.messages[1]!;
          expect(block.role).toBe('system');
          if (block.content !== current.content) {
            // A held block: the previous payload's block, and nothing after what it covers is left out.
            held++;
            expect(payload.stats.extra).toEqual({ heldMemory: ['state'] });
            expect(block).toBe(previous!.payload.messages[1]);
            const until = Number(/after (\d+) messages/.exec(String(block.content))![1]);
            expect(window.fromIndex).toBeLessThanOrEqual(until);
            // Older history is still reported as what the block kept.
            expect(
              payload.stats.reductions
                .filter((record) => record.action === 'dropped' && record.reason === 'in the state')
                .every((record) => record.to <= until),
            ).toBe(true);
          } else if (previous && window.fromIndex !== previous.window.fromIndex) refreshedAtCut++;
          previous = composed;
        }
        expect(held).toBeGreaterThan(5);
        expect(refreshedAtCut).toBeGreaterThan(0);
        // A block that was rewritten (holds answers false) is always sent as it is.
        const rewritten = composer(1500);
        for (let end = 2; end <= history.length; end += 2) {
          const current = state(end - 1, false);
          const { payload } = rewritten.compose(
            turnRequest(history, end, {
              cutBackRatio: 0.5,
              memory: [current],
            }),
          );
          expect(payload.messages[1]!.content).toBe(current.content);
          expect(payload.stats.extra).toBeUndefined();
        }
      },
    );

    it(
      'with cutBackRatio below 1, sends a shortened block again in the form the previous payload had while the ' +
        'window holds, and fits it afresh at the next cut',
      () => {
        const long = Array.from({ length: 200 }, (_, n) => `fact ${n}: the code is ZX${n}Q`).join('\n');
        const shrink = (maxTokens: number): string =>
          long
            .split('\n')
            .slice(0, Math.floor(maxTokens / 12))
            .join('\n');
        const history = turns(60, 24);
        // The block stands for all but the last ten turns; its room grows with what the window leaves out.
        const block = (end: number) => summary(long, Math.max(0, end - 20), { shrink });
        const run = (cutBackRatio: number) => {
          const compose = composer(1600);
          const calls: Array<{ start: number; form: ChatMessage | undefined; outcome: string }> = [];
          for (let end = 6; end <= history.length; end += 2) {
            const composed = compose.compose(
              turnRequest(history, end, {
                cutBackRatio,
                memory: [block(end)],
              }),
            );
            expect(composed.payload.stats.output_tokens).toBeLessThanOrEqual(composed.payload.stats.budget.available);
            calls.push({
              start: composed.window.fromIndex,
              form: composed.memory[0] === 'shortened' ? composed.payload.messages[1] : undefined,
              outcome: composed.memory[0]!,
            });
          }
          return calls;
        };
        const grows = (calls: ReturnType<typeof run>) =>
          calls.filter(
            (call, index) =>
              index > 0 &&
              call.form !== undefined &&
              calls[index - 1]!.form !== undefined &&
              call.form !== calls[index - 1]!.form,
          );
        // Without cut-back the shortened form follows the room from call to call.
        expect(grows(run(1)).length).toBeGreaterThan(3);
        const held = run(0.6);
        expect(held.filter((call) => call.outcome === 'shortened').length).toBeGreaterThan(10);
        held.forEach((call, index) => {
          const before = held[index - 1];
          // While the window's start holds, the block is the same message as in the previous payload.
          if (before && call.start === before.start && before.form !== undefined && call.form !== undefined)
            expect(call.form).toBe(before.form);
        });
        // A cut fits it afresh.
        expect(
          held.some(
            (call, index) =>
              index > 0 &&
              call.start !== held[index - 1]!.start &&
              call.form !== undefined &&
              held[index - 1]!.form !== undefined &&
              call.form !== held[index - 1]!.form,
          ),
        ).toBe(true);
      },
    );

    it(
      'with cutBackRatio below 1 and a block that stands for older history, a cut drops no more than the block ' +
        'covers or than must go',
      () => {
        const compose = composer(1500);
        const history = turns(40);
        let cuts = 0;
        for (let end = 2; end <= history.length; end += 2) {
          // The summary lags: it covers only the first quarter of the history.
          const covered = 2 * Math.floor(end / 8);
          const full = composer(1500).compose(
            turnRequest(history, end, {
              memory: [summary(`Summary of ${covered} messages.`, covered)],
            }),
          );
          const { window } = compose.compose(
            turnRequest(history, end, {
              cutBackRatio: 0.4,
              memory: [summary(`Summary of ${covered} messages.`, covered)],
            }),
          );
          if (window.fromIndex > 0) cuts++;
          expect(window.fromIndex).toBeLessThanOrEqual(Math.max(covered, full.window.fromIndex));
        }
        expect(cuts).toBeGreaterThan(5);
      },
    );

    it(
      'a kept head that gave way to a long turn stays out while the window holds, and comes back at the next ' + 'cut',
      () => {
        const compose = composer(1200);
        const options = { systemPrompt: 'S', tools: [], cutBackRatio: 0.6, keepFirstShare: 0.4 };
        const headEnd = (payload: { stats: { reductions: Array<{ action: string; from: number }> } }) =>
          payload.stats.reductions.find((record) => record.action === 'dropped')?.from ?? 0;
        let history: ChatMessage[] = [...turns(20), { role: 'user', content: 'Read the logs.' }];
        expect(headEnd(compose.compose({ ...options, history, turn: 21 }).payload)).toBeGreaterThan(0);
        // One turn reads outputs until the head must make room for it.
        let gaveWay = false;
        for (let step = 0; step < 8; step++) {
          history = [
            ...history,
            {
              role: 'assistant',
              content: '',
              tool_calls: [{ id: `c${step}`, type: 'function', function: { name: 'read', arguments: '{}' } }],
            },
            { role: 'tool', tool_call_id: `c${step}`, content: 'log line '.repeat(60) },
          ];
          const head = headEnd(compose.compose({ ...options, history, turn: 21 }).payload);
          if (gaveWay) expect(head).toBe(0);
          gaveWay ||= head === 0;
        }
        expect(gaveWay).toBe(true);
        // The next turns: out while the window's start holds, back in front of the window at the next cut.
        let back = false;
        let previous: ReturnType<typeof compose.compose> | undefined;
        for (let turn = 0; turn < 30 && !back; turn++) {
          history = [
            ...history,
            { role: 'assistant', content: `Done ${turn}.` },
            { role: 'user', content: `Question ${turn}: ${'and the logs of the next build '.repeat(6)}` },
          ];
          const composed = compose.compose({ ...options, history, turn: 22 + turn });
          back = headEnd(composed.payload) > 0;
          if (!back && previous && composed.window.fromIndex === previous.window.fromIndex)
            expect(composed.payload.messages.slice(0, previous.payload.messages.length)).toEqual(
              previous.payload.messages,
            );
          if (back) expect(composed.window.fromIndex).toBe(0);
          previous = composed;
        }
        expect(back).toBe(true);
      },
    );

    it('reports the tokens each payload repeats from the previous one (what a prompt cache can serve)', () => {
      const compose = composer(1200);
      const history = turns(40);
      const first = compose.compose({ systemPrompt: 'S', history: history.slice(0, 2), tools: [], turn: 1 }).payload;
      expect(first.stats.repeatedPrefixTokens).toBe(0);
      const second = compose.compose({ systemPrompt: 'S', history: history.slice(0, 4), tools: [], turn: 2 }).payload;
      // the history fits whole: the whole first payload is repeated
      expect(second.stats.repeatedPrefixTokens).toBe(first.stats.output_tokens);
      let previous = second;
      let cut = 0;
      for (let end = 6; end <= history.length; end += 2) {
        const next = compose.compose(turnRequest(history, end)).payload;
        const expected =
          next.messages[1] === previous.messages[1]
            ? previous.stats.output_tokens
            : counter.countMessages([next.messages[0]!]);
        if (next.messages[1] !== previous.messages[1]) cut++;
        expect(next.stats.repeatedPrefixTokens).toBe(expected);
        previous = next;
      }
      // once the history overflows, dropping the oldest turn leaves only the system prompt repeated
      expect(cut).toBeGreaterThan(5);
    });

    it(
      'hands over the payload sent before (its own copy) and how many leading messages the new one repeats; ' +
        'layouts not committed change neither',
      () => {
        const compose = composer(1200);
        const history = turns(40);
        const first = compose.compose({ systemPrompt: 'S', history: history.slice(0, 2), tools: [], turn: 1 });
        expect(first.previous).toBeUndefined();
        let sent = first.payload.messages.slice();
        // The caller changing the array it was given changes nothing the next payload is related to.
        first.payload.messages.length = 0;
        for (let end = 4; end <= history.length; end += 2) {
          const request = { systemPrompt: 'S', history: history.slice(0, end), tools: [], turn: end / 2 };
          compose.layout({ ...request, history: history.slice(0, end - 1) });
          compose.layout({ ...request, history: history.slice(2, end) });
          const next = compose.compose(request);
          expect(next.previous!.messages).toEqual(sent);
          let repeated = 0;
          while (
            repeated < Math.min(sent.length, next.payload.messages.length) &&
            sent[repeated] === next.payload.messages[repeated]
          )
            repeated++;
          expect(next.previous!.repeated).toBe(repeated);
          sent = next.payload.messages.slice();
        }
      },
    );

    it('lays out a preview without committing it: no event, the next compose is the one it would have been', () => {
      const events = new CtxkitEventBus();
      const seen: string[] = [];
      for (const name of ['payload-composed', 'history-trim'] as CtxkitEventName[])
        events.on(name, () => seen.push(name));
      const history = turns(40);
      const plain = composer(1200);
      const previewed = composer(1200, events);
      for (let end = 2; end <= 60; end += 2) {
        const request = {
          systemPrompt: 'S',
          history: history.slice(0, end),
          tools: [],
          turn: end / 2,
          cutBackRatio: 0.6,
        };
        const before = seen.length;
        const preview = previewed.layout(request).payload;
        expect(seen.length).toBe(before);
        const real = previewed.compose(request).payload;
        const expected = plain.compose(request).payload;
        expect(real.messages).toEqual(expected.messages);
        expect(real.stats.repeatedPrefixTokens).toBe(expected.stats.repeatedPrefixTokens);
        expect(preview.messages).toEqual(real.messages);
      }
      expect(seen).toContain('payload-composed');
    });

    it(
      'builds on a layout only once it is committed: the payloads then follow the committed layout, whatever other ' +
        'layouts a call tried',
      () => {
        const events = new CtxkitEventBus();
        const seen: string[] = [];
        events.on('payload-composed', () => seen.push('payload-composed'));
        const history = turns(40);
        const plain = composer(1200);
        const probing = composer(1200, events);
        for (let end = 2; end <= 60; end += 2) {
          const request = {
            systemPrompt: 'S',
            history: history.slice(0, end),
            tools: [],
            turn: end / 2,
            cutBackRatio: 0.6,
          };
          // A larger layout tried first (another budget's worth of history), then the one sent.
          probing.layout({ ...request, history: history.slice(0, Math.min(80, end + 10)) });
          const kept = probing.layout(request);
          expect(seen).toHaveLength(end / 2 - 1);
          probing.commit(kept, request.turn);
          expect(seen).toHaveLength(end / 2);
          const expected = plain.compose(request);
          expect(kept.payload.messages).toEqual(expected.payload.messages);
          expect(kept.payload.stats.repeatedPrefixTokens).toBe(expected.payload.stats.repeatedPrefixTokens);
        }
      },
    );

    it('with the default cutBackRatio of 1, drops only what must go on every call', () => {
      const compose = composer(1200);
      const history = turns(40);
      const held = composer(1200);
      let moved = 0;
      for (let end = 2; end <= history.length; end += 2) {
        const plain = compose.compose({ systemPrompt: 'S', history: history.slice(0, end), tools: [], turn: end / 2 });
        const explicit = held.compose(
          turnRequest(history, end, {
            cutBackRatio: 1,
          }),
        );
        expect(explicit.payload.messages).toEqual(plain.payload.messages);
        if (plain.window.fromIndex > 0) {
          moved++;
          // an overflowing window leaves less than one turn of its room unused
          expect(plain.roomTokens - plain.window.tokens).toBeLessThan(counter.countMessages(history.slice(0, 2)));
        }
      }
      expect(moved).toBeGreaterThan(10);
    });

    it(
      'gives each record it makes a machine cause: older history a block covers, the rest of the older history, a ' +
        'start index',
      () => {
        const history = turns(40);
        const { payload } = composer(1000).compose({
          systemPrompt: 'sys',
          history,
          tools: [],
          turn: 40,
          memory: [summary('The earlier turns in short.', 20)],
        });
        const causes = payload.stats.reductions
          .filter((record) => record.messages > 0)
          .map((record) => [record.action, record.cause]);
        expect(causes).toEqual([
          ['summarized', 'covered-by-memory'],
          ['dropped', 'older-than-window'],
        ]);
        const lean = composer(1000).compose({
          systemPrompt: 'sys',
          history,
          tools: [],
          turn: 40,
          startIndex: 70,
          startReason: 'lean',
        });
        expect(lean.payload.stats.reductions[0]).toMatchObject({
          action: 'dropped',
          from: 0,
          to: 70,
          reason: 'lean',
          cause: 'before-start',
        });
      },
    );

    it('rejects with a typed error when the system prompt and tools alone exceed the budget', () => {
      expect(() =>
        composer(300).compose({ systemPrompt: 'x '.repeat(400), history: turns(1), tools: [], turn: 1 }),
      ).toThrow(expect.objectContaining({ code: 'CTXKIT_BUDGET_EXCEEDED' }));
    });

    it('keeps the invariants for any history, memory size and budget (property)', () => {
      fc.assert(
        fc.property(
          arbHistory({ minTurns: 1, maxTurns: 12 }),
          fc.integer({ min: 0, max: 400 }),
          fc.integer({ min: 400, max: 3000 }),
          fc.double({ min: 0, max: 1, noNaN: true }),
          (history, words, ceiling, share) => {
            const block = summary('remember '.repeat(words), Math.floor(history.length / 2));
            const composed = composer(ceiling).compose({
              systemPrompt: 'sys',
              history,
              tools: [],
              turn: 1,
              memory: [block],
              memoryShare: share,
            });
            const { payload, window } = composed;
            expect(counter.countMessages(payload.messages)).toBeLessThanOrEqual(payload.stats.budget.available);
            expect(findPayloadProblems(payload.messages)).toEqual([]);
            const newestUser = history.map((message) => message.role).lastIndexOf('user');
            if (newestUser !== -1)
              expect(
                payload.messages.some(
                  (message) =>
                    message.role === 'user' && (message === history[newestUser] || String(message.content).length > 0),
                ),
              ).toBe(true);
            // Budget is never left unused while older history is dropped: the next older group did not fit.
            if (
              window.fromIndex > 0 &&
              window.fromIndex < history.length &&
              payload.stats.reductions.some(
                (record) => record.action !== 'truncated' && record.to === window.fromIndex && record.messages > 0,
              )
            ) {
              const next = groupEndingAt(history, window.fromIndex);
              if (next.kind !== 'orphan-tool' && next.kind !== 'incomplete-tool-exchange') {
                expect(counter.countMessages(history.slice(next.start, next.end))).toBeGreaterThan(
                  payload.stats.budget.remaining,
                );
              }
            }
          },
        ),
        { numRuns: 60 },
      );
    });
  });

  describe('#commit', () => {
    /** Every event `compose` emits on a fresh bus, by name. */
    function recorded(events: CtxkitEventBus): Array<{ name: CtxkitEventName; reductions?: ReductionRecord[] }> {
      const seen: Array<{ name: CtxkitEventName; reductions?: ReductionRecord[] }> = [];
      for (const name of [
        'history-trim',
        'tool-output-trim',
        'usage-level-change',
        'payload-composed',
      ] as CtxkitEventName[]) {
        events.on(name, (payload: unknown) => {
          const { reductions } = payload as { reductions?: ReductionRecord[] };
          seen.push({ name, ...(reductions ? { reductions } : {}) });
        });
      }
      return seen;
    }
    /** The events that carry `record` in their reductions. */
    const carrying = (seen: ReturnType<typeof recorded>, record: ReductionRecord) =>
      seen.filter((event) => event.reductions?.includes(record)).map((event) => event.name);

    it("reports the strategy's micro-compacted results in one tool-output-trim", () => {
      const events = new CtxkitEventBus();
      const seen = recorded(events);
      const history: ChatMessage[] = [
        { role: 'user', content: 'Read the logs.' },
        {
          role: 'assistant',
          content: null,
          tool_calls: [{ id: 'c1', type: 'function', function: { name: 'run', arguments: '{}' } }],
        },
        { role: 'tool', tool_call_id: 'c1', content: '[Previous: used run]' },
        { role: 'user', content: 'Now fix it.' },
      ];
      const microCompacted: ReductionRecord = {
        action: 'micro-compacted',
        from: 2,
        to: 3,
        messages: 1,
        tokensBefore: 400,
        tokensAfter: 8,
        reason: 'tool result micro-compacted to fit the context window',
        recoverableFrom: 'history',
      };
      const { payload } = composer(4000, events).compose({
        systemPrompt: 'sys',
        history,
        tools: [],
        turn: 2,
        reductions: [microCompacted],
      });
      const record = payload.stats.reductions.find((candidate) => candidate.action === 'micro-compacted')!;
      expect(record).toEqual(microCompacted);
      expect(carrying(seen, record)).toEqual(['tool-output-trim']);
    });

    it('reports a summary block shortened or left out, which touches no message, in one event', () => {
      const long = Array.from({ length: 200 }, (_, n) => `fact ${n}: the code is ZX${n}Q`).join('\n');
      const events = new CtxkitEventBus();
      const seen = recorded(events);
      const shortened = composer(1000, events).compose({
        systemPrompt: 'sys',
        history: turns(40),
        tools: [],
        turn: 40,
        memory: [summary(long, 60)],
        memoryShare: 0.3,
      });
      const cut = shortened.payload.stats.reductions.find(
        (record) => record.reason === 'summary block shortened to its share of the budget',
      )!;
      expect(cut).toMatchObject({ action: 'truncated', messages: 0 });
      expect(carrying(seen, cut)).toEqual(['tool-output-trim']);

      const history: ChatMessage[] = [
        ...turns(3),
        { role: 'user', content: 'Check these codes: ' + 'code '.repeat(780) },
      ];
      const leftOut = composer(900, events).compose({
        systemPrompt: 'sys',
        history,
        tools: [],
        turn: 4,
        memory: [summary('A summary of the earlier turns. '.repeat(20), 6)],
      });
      expect(leftOut.memory).toEqual(['left-out']);
      const dropped = leftOut.payload.stats.reductions.find(
        (record) => record.reason === 'summary block left out: no room beside the newest user message',
      )!;
      expect(dropped).toMatchObject({ action: 'dropped', messages: 0 });
      expect(carrying(seen, dropped)).toEqual(['history-trim']);
    });

    it('leaves usage-level-change to the host of a session that has one', () => {
      const events = new CtxkitEventBus();
      const seen = recorded(events);
      composer(1000, events).compose({ systemPrompt: 'sys', history: turns(40), tools: [], turn: 40 });
      expect(seen.filter((event) => event.name === 'usage-level-change')).toHaveLength(1);
      const hosted = new CtxkitEventBus();
      hosted.hostedUsageLevels.add('s');
      const silent = recorded(hosted);
      const { payload } = composer(1000, hosted).compose({
        systemPrompt: 'sys',
        history: turns(40),
        tools: [],
        turn: 40,
      });
      expect(payload.stats.usageLevel).not.toBe('ok');
      expect(silent.map((event) => event.name)).toEqual(['history-trim', 'payload-composed']);
    });
  });
});
