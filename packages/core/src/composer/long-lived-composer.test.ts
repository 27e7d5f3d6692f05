import fc from 'fast-check';

import { testComposer } from '../__fixtures__/test-composer';
import { computeBudget } from '../budget/compute-budget';
import type { ChatMessage } from '../contracts/chat-message';
import type { LLMPayload } from '../contracts/llm-payload';
import { CtxkitEventBus } from '../events/event-bus';
import { findPayloadProblems } from '../messages/find-payload-problems';
import { pinStandIn } from '../pins/pin-stand-in';
import { createTokenCounter } from '../token-counting/create-token-counter';
import type { MemoryBlock } from './memory-block';
import { PayloadComposer } from './payload-composer';

const counter = createTokenCounter({ model: 'gpt-4o' });

/** What one turn appends to the history (a split exchange leaves its last result for the next turn). */
type Step =
  | { kind: 'user'; words: number }
  | { kind: 'assistant'; words: number }
  | { kind: 'exchange'; calls: number; outputWords: number; split: boolean }
  | { kind: 'pin'; back: number };

interface Scenario {
  turns: Step[][];
  maxContextTokens: number;
  cutBackRatio: number;
  keepFirstShare: number;
  collapseOlderToolResults: boolean;
  previewEvery: number;
  pinBlock: boolean;
  /** A state block that grows with the history read (and may be held from an earlier payload). */
  stateBlock: boolean;
  /** The long-lived composer is given one array, changed in place. */
  inPlace: boolean;
}

const arbStep: fc.Arbitrary<Step> = fc.oneof(
  fc.record({ kind: fc.constant('user' as const), words: fc.integer({ min: 1, max: 60 }) }),
  fc.record({ kind: fc.constant('assistant' as const), words: fc.integer({ min: 1, max: 40 }) }),
  fc.record({
    kind: fc.constant('exchange' as const),
    calls: fc.integer({ min: 1, max: 3 }),
    outputWords: fc.oneof(fc.integer({ min: 1, max: 80 }), fc.integer({ min: 200, max: 900 })),
    split: fc.boolean(),
  }),
  fc.record({ kind: fc.constant('pin' as const), back: fc.integer({ min: 1, max: 40 }) }),
);

const arbScenario: fc.Arbitrary<Scenario> = fc.record({
  turns: fc.array(fc.array(arbStep, { minLength: 1, maxLength: 4 }), { minLength: 2, maxLength: 22 }),
  maxContextTokens: fc.integer({ min: 400, max: 5000 }),
  cutBackRatio: fc.oneof(fc.constant(1), fc.double({ min: 0.3, max: 0.95, noNaN: true })),
  keepFirstShare: fc.oneof(fc.constant(0), fc.double({ min: 0.05, max: 0.6, noNaN: true })),
  collapseOlderToolResults: fc.boolean(),
  previewEvery: fc.integer({ min: 0, max: 3 }),
  pinBlock: fc.boolean(),
  stateBlock: fc.boolean(),
  inPlace: fc.boolean(),
});

function words(count: number, seed: number): string {
  const vocabulary = [
    'build',
    'main.go',
    'error',
    'line',
    'returns',
    'the',
    'test',
    'passes',
    'cache',
    '42',
    'ok',
    'failed',
  ];
  return Array.from({ length: count }, (_, index) => vocabulary[(index * 7 + seed) % vocabulary.length]).join(' ');
}

/**
 * Applies one turn's steps to `history` (a new array; earlier messages keep their identity unless a pin replaces one).
 */
function grow(
  history: ChatMessage[],
  steps: Step[],
  pending: ChatMessage[],
  turn: number,
): { history: ChatMessage[]; pending: ChatMessage[] } {
  const next = [...history, ...pending];
  let left: ChatMessage[] = [];
  steps.forEach((step, position) => {
    const seed = turn * 10 + position;
    if (step.kind === 'user') next.push({ role: 'user', content: `Turn ${seed}: ${words(step.words, seed)}` });
    else if (step.kind === 'assistant') next.push({ role: 'assistant', content: words(step.words, seed) });
    else if (step.kind === 'exchange') {
      const ids = Array.from({ length: step.calls }, (_, call) => `call_${seed}_${call}`);
      next.push({
        role: 'assistant',
        content: '',
        tool_calls: ids.map((id) => ({
          id,
          type: 'function',
          function: { name: 'read_file', arguments: `{"path":"src/${id}.go"}` },
        })),
      });
      const results: ChatMessage[] = ids.map((id, call) => ({
        role: 'tool',
        tool_call_id: id,
        content: `${id}\n${words(step.outputWords + call, seed + call)}`,
      }));
      if (step.split && position === steps.length - 1 && results.length > 1) {
        next.push(...results.slice(0, -1));
        left = results.slice(-1);
      } else next.push(...results);
    } else if (next.length > step.back) {
      // A pinned message replaced in place by its stand-in (a new object in the middle of the history).
      const at = next.length - step.back;
      next[at] = pinStandIn(next[at]!, `pin-${seed}`);
    }
  });
  if (left.length === 0 && next[next.length - 1]?.role !== 'user')
    next.push({ role: 'user', content: `Turn ${turn}: go on` });
  return { history: next, pending: left };
}

/** A history of `turns` tool exchanges, each output `outputWords` words long. */
function exchanges(turns: number, outputWords: number): ChatMessage[] {
  const history: ChatMessage[] = [];
  for (let turn = 0; turn < turns; turn++)
    grow(history, [{ kind: 'exchange', calls: 1, outputWords, split: false }], [], turn)
      .history.slice(history.length)
      .forEach((message) => history.push(message));
  return history;
}

function newComposer(maxContextTokens: number): PayloadComposer {
  return testComposer(maxContextTokens, counter);
}

/** The payload as sent and its stats, without `repeatedPrefixTokens` (it depends on the previous payload's objects). */
function sentForm(payload: LLMPayload): string {
  const { repeatedPrefixTokens: _repeated, ...stats } = payload.stats;
  return JSON.stringify({ messages: payload.messages, tools: payload.tools, stats });
}

/**
 * `repeatedPrefixTokens` counted the direct way: the payload less the messages after the start it shares (by identity)
 * with the previous one.
 */
function repeatedPrefix(previous: LLMPayload | undefined, payload: LLMPayload): number {
  if (previous === undefined) return 0;
  let index = 0;
  while (
    index < Math.min(previous.messages.length, payload.messages.length) &&
    previous.messages[index] === payload.messages[index]
  )
    index++;
  return Math.max(0, payload.stats.output_tokens - counter.countMessages(payload.messages.slice(index)));
}

describe('PayloadComposer across turns', () => {
  /** Payloads that sent a held state block, over every run (the property must reach that path). */
  let heldStates = 0;
  afterAll(() => expect(heldStates).toBeGreaterThan(0));

  it(
    'composes, turn after turn, the payload a composer that reuses nothing composes, within budget and valid ' +
      '(random growth, budgets, cut back, kept first groups, held state blocks, pins, collapsing, previews, one ' +
      'array changed in place)',
    () => {
      fc.assert(
        fc.property(arbScenario, (scenario) => {
          const longLived = newComposer(scenario.maxContextTokens);
          // The reference sees each turn's history rebuilt from JSON: no message object is the same, so nothing is
          // reused.
          const reference = newComposer(scenario.maxContextTokens);
          let history: ChatMessage[] = [];
          let pending: ChatMessage[] = [];
          let previous: LLMPayload | undefined;
          let own: ChatMessage[] | undefined;
          scenario.turns.forEach((steps, turn) => {
            ({ history, pending } = grow(history, steps, pending, turn));
            const memory: MemoryBlock[] = scenario.pinBlock
              ? [{ name: 'pins', content: `Pinned: ${words(20 + (turn % 3), turn)}`, placement: 'after-system' }]
              : [];
            // The state has read all but the newest message; any earlier state may stand for it.
            const read = Math.max(0, history.length - 1);
            if (scenario.stateBlock)
              memory.push({
                name: 'state',
                content: `State of ${read} messages: ${words(10 + (read % 50), read)}`,
                covers: { until: read, action: 'dropped', recoverableFrom: 'entity-state', reason: 'in the state' },
                holds: () => true,
              });
            const request = {
              systemPrompt: 'You are a coding agent.',
              tools: [],
              memory,
              cutBackRatio: scenario.cutBackRatio,
              keepFirstShare: scenario.keepFirstShare,
              collapseOlderToolResults: scenario.collapseOlderToolResults,
              turn,
            };
            if (scenario.previewEvery > 0 && turn % scenario.previewEvery === 0) {
              const preview = longLived.layout({
                ...request,
                history: history.slice(0, Math.max(1, history.length - 1)),
              });
              expect(preview.payload.stats.output_tokens).toBeLessThanOrEqual(preview.payload.stats.budget.available);
            }
            const rebuilt = JSON.parse(JSON.stringify(history)) as ChatMessage[];
            const expected = reference.compose({ ...request, history: rebuilt }).payload;
            let given = history;
            if (scenario.inPlace) {
              // The same array as the last call, written over where it changed (a pin replaces one in the middle).
              if (own === undefined) own = history.slice();
              else {
                for (let index = 0; index < history.length; index++)
                  if (own[index] !== history[index]) own[index] = history[index]!;
                own.length = history.length;
              }
              given = own;
            }
            const actual = longLived.compose({ ...request, history: given }).payload;
            expect(sentForm(actual)).toBe(sentForm(expected));
            expect(actual.stats.output_tokens).toBeLessThanOrEqual(actual.stats.budget.available);
            // Generated turns may end on a tool exchange with no user message yet; every other problem is a defect.
            expect(
              findPayloadProblems(actual.messages).filter((problem) => problem.problem !== 'no-user-message'),
            ).toEqual([]);
            expect(actual.stats.repeatedPrefixTokens).toBe(repeatedPrefix(previous, actual));
            const heldState = actual.messages.find(
              (message) => message.role === 'system' && String(message.content).startsWith('State of '),
            );
            if (heldState && (actual.stats.extra?.heldMemory as string[] | undefined)?.includes('state')) {
              // A held state: nothing it has not read is left out of the window (cut outputs aside).
              heldStates++;
              const until = Number(/^State of (\d+)/.exec(String(heldState.content))![1]);
              expect(
                actual.stats.reductions.filter(
                  (record) => record.messages > 0 && record.action !== 'truncated' && record.to > until,
                ),
              ).toEqual([]);
            }
            if (scenario.cutBackRatio === 1)
              expect(sentForm(newComposer(scenario.maxContextTokens).compose({ ...request, history }).payload)).toBe(
                sentForm(actual),
              );
            previous = actual;
          });
        }),
        { numRuns: 60 },
      );
    },
  );

  it('measures a message replaced in place again: the payload is the one a fresh composer sends', () => {
    const history = exchanges(60, 30);
    const composer = newComposer(2500);
    const request = { systemPrompt: 'You are a coding agent.', tools: [], turn: 1 };
    const first = composer.compose({ ...request, history }).payload;
    expect(first.stats.messages.output).toBeLessThan(history.length);
    // Grown by one turn, with a message of the window replaced in place by a longer one.
    history.push({ role: 'user', content: 'and now?' });
    const at = history.length - 20;
    history[at] = { ...history[at]!, content: `${String(history[at]!.content)} ${words(80, at)}` } as ChatMessage;
    const payload = composer.compose({ ...request, history }).payload;
    const expected = newComposer(2500).compose({
      ...request,
      history: JSON.parse(JSON.stringify(history)) as ChatMessage[],
    }).payload;
    expect(sentForm(payload)).toBe(sentForm(expected));
  });

  it('counts the repeated prefix against the layout committed, also one made before its array was written over', () => {
    const history = exchanges(6, 5);
    const composer = newComposer(4000);
    const request = { systemPrompt: 'You are a coding agent.', tools: [], turn: 1 };
    composer.compose({ ...request, history });
    // A layout of the grown array, then another one after a message of its window was written over.
    history.push({ role: 'user', content: 'and now?' });
    const early = composer.layout({ ...request, history });
    history[2] = { ...history[2]!, content: `${String(history[2]!.content)} rewritten` } as ChatMessage;
    composer.layout({ ...request, history });
    composer.commit(early, 1);
    history.push({ role: 'assistant', content: 'Done.' }, { role: 'user', content: 'next?' });
    const next = composer.compose({ ...request, history }).payload;
    expect(next.stats.repeatedPrefixTokens).toBe(repeatedPrefix(early.payload, next));
  });

  it('sends a message replaced in place at once, also when the array keeps its length and its last message', () => {
    const history = grow([], [{ kind: 'exchange', calls: 1, outputWords: 1, split: false }], [], 0).history;
    const composer = newComposer(400);
    const request = { systemPrompt: 'You are a coding agent.', tools: [], turn: 1 };
    expect(composer.compose({ ...request, history }).payload.messages[2]).toBe(history[1]);
    // A pin replaces the tool output in the middle: nothing was appended, so the array looks as it did.
    history[1] = pinStandIn(history[1]!, 'pin-1');
    const payload = composer.compose({ ...request, history }).payload;
    expect(payload.messages[2]).toBe(history[1]);
    expect(sentForm(payload)).toBe(
      sentForm(
        newComposer(400).compose({ ...request, history: JSON.parse(JSON.stringify(history)) as ChatMessage[] }).payload,
      ),
    );
  });
});
