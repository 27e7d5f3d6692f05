import type { ChatMessage, ReasoningItem } from '@ctxkit/core';
import { freezeDeep } from '@ctxkit/core/testing';
import fc from 'fast-check';

/**
 * Payload sequences as a strategy composes them turn after turn: a conversation of frozen messages,
 * and payloads that are windows over it (system messages first), each derived from the previous one
 * by a step: the window grows, its oldest messages are left out, it moves back, a message inside is
 * replaced by another object, the system messages change. Mostly valid units, with units every
 * provider refuses mixed in, so that both the partial and the full checks are exercised.
 */

const call = (id: string, args = '{}') => ({
  id,
  type: 'function' as const,
  function: { name: 'lookup', arguments: args },
});
const thinking = (signed: boolean): ReasoningItem => ({
  provider: 'anthropic',
  data: signed
    ? { type: 'thinking', thinking: 'Look it up.', signature: 'sig' }
    : { type: 'thinking', thinking: 'Look it up.' },
});
const reasoning = (id: string): ReasoningItem => ({ provider: 'openai', data: { type: 'reasoning', id, summary: [] } });

/** One unit of a conversation, by kind. */
type UnitKind =
  | 'user'
  | 'assistant'
  | 'exchange'
  | 'thinking-exchange'
  | 'reasoning-exchange'
  | 'reused-id-exchange'
  | 'missing-result'
  | 'orphan-result'
  | 'system-inside'
  | 'empty-assistant'
  | 'empty-user'
  | 'unsigned-thinking'
  | 'reasoning-alone'
  | 'array-arguments';

let unitCounter = 0;

function unit(kind: UnitKind): ChatMessage[] {
  const n = ++unitCounter;
  switch (kind) {
    case 'user':
      return [{ role: 'user', content: `question ${n}` }];
    case 'assistant':
      return [{ role: 'assistant', content: `answer ${n}` }];
    case 'exchange':
      return [
        { role: 'assistant', content: null, tool_calls: [call(`c${n}a`), call(`c${n}b`)] },
        { role: 'tool', tool_call_id: `c${n}a`, content: 'one' },
        { role: 'tool', tool_call_id: `c${n}b`, content: 'two' },
      ];
    case 'thinking-exchange':
      return [
        { role: 'assistant', content: null, tool_calls: [call(`c${n}`)], reasoning: [thinking(true)] },
        { role: 'tool', tool_call_id: `c${n}`, content: 'r' },
      ];
    case 'reasoning-exchange':
      return [
        { role: 'assistant', content: null, tool_calls: [call(`c${n}`)], reasoning: [reasoning(`rs${n}`)] },
        { role: 'tool', tool_call_id: `c${n}`, content: 'r' },
      ];
    case 'reused-id-exchange':
      return [
        { role: 'assistant', content: null, tool_calls: [call('reused')] },
        { role: 'tool', tool_call_id: 'reused', content: 'r' },
      ];
    case 'missing-result':
      return [
        { role: 'assistant', content: null, tool_calls: [call(`c${n}a`), call(`c${n}b`)] },
        { role: 'tool', tool_call_id: `c${n}a`, content: 'one' },
      ];
    case 'orphan-result':
      return [{ role: 'tool', tool_call_id: `lost${n}`, content: 'r' }];
    case 'system-inside':
      return [{ role: 'system', content: `note ${n}` }];
    case 'empty-assistant':
      return [{ role: 'assistant', content: null }];
    case 'empty-user':
      return [{ role: 'user', content: '' }];
    case 'unsigned-thinking':
      return [{ role: 'assistant', content: `answer ${n}`, reasoning: [thinking(false)] }];
    case 'reasoning-alone':
      return [{ role: 'assistant', content: null, reasoning: [reasoning(`rs${n}`)] }];
    case 'array-arguments':
      return [
        { role: 'assistant', content: null, tool_calls: [call(`c${n}`, '[1]')] },
        { role: 'tool', tool_call_id: `c${n}`, content: 'r' },
      ];
  }
}

const VALID: UnitKind[] = [
  'user',
  'user',
  'assistant',
  'exchange',
  'exchange',
  'thinking-exchange',
  'reasoning-exchange',
  'reused-id-exchange',
];
const INVALID: UnitKind[] = [
  'missing-result',
  'orphan-result',
  'system-inside',
  'empty-assistant',
  'empty-user',
  'unsigned-thinking',
  'reasoning-alone',
  'array-arguments',
];

/** A unit kind, valid 24 times in 25. */
export const arbUnitKind: fc.Arbitrary<UnitKind> = fc.oneof(
  { arbitrary: fc.constantFrom(...VALID), weight: 24 },
  { arbitrary: fc.constantFrom(...INVALID), weight: 1 },
);

/** A conversation of frozen messages built from unit kinds, starting with a user message. */
export function conversationOf(kinds: readonly UnitKind[]): ChatMessage[] {
  return freezeDeep([...unit('user'), ...kinds.flatMap(unit)]);
}

/** One step from a payload to the next. */
export type PayloadStep =
  | { kind: 'grow'; by: number; whole: boolean }
  | { kind: 'leave-out-oldest'; by: number; whole: boolean }
  | { kind: 'move-back'; by: number }
  | { kind: 'shrink'; by: number }
  | { kind: 'replace'; at: number; with: UnitKind }
  | { kind: 'systems'; count: number; fresh: boolean };

/** True four times in five. */
const arbMostly = fc.oneof({ arbitrary: fc.constant(true), weight: 4 }, { arbitrary: fc.constant(false), weight: 1 });

/**
 * A step; growing and leaving out stop at the end of a tool exchange four times in five, as a strategy's windows do.
 */
export const arbPayloadStep: fc.Arbitrary<PayloadStep> = fc.oneof(
  {
    arbitrary: fc.record({ kind: fc.constant('grow' as const), by: fc.integer({ min: 0, max: 4 }), whole: arbMostly }),
    weight: 8,
  },
  {
    arbitrary: fc.record({
      kind: fc.constant('leave-out-oldest' as const),
      by: fc.integer({ min: 1, max: 3 }),
      whole: arbMostly,
    }),
    weight: 2,
  },
  { arbitrary: fc.record({ kind: fc.constant('move-back' as const), by: fc.integer({ min: 1, max: 3 }) }), weight: 1 },
  { arbitrary: fc.record({ kind: fc.constant('shrink' as const), by: fc.integer({ min: 1, max: 3 }) }), weight: 1 },
  { arbitrary: fc.record({ kind: fc.constant('replace' as const), at: fc.nat(), with: arbUnitKind }), weight: 1 },
  {
    arbitrary: fc.record({
      kind: fc.constant('systems' as const),
      count: fc.integer({ min: 0, max: 2 }),
      fresh: fc.boolean(),
    }),
    weight: 1,
  },
);

/** The payloads a sequence of steps gives over a conversation, each a new array, messages shared by identity. */
export function payloadsOf(
  conversation: readonly ChatMessage[],
  steps: readonly PayloadStep[],
  start = 4,
): ChatMessage[][] {
  let from = 0;
  let to = Math.min(start, conversation.length);
  let systems: ChatMessage[] = freezeDeep([{ role: 'system', content: 'You help.' }]);
  const replaced = new Map<number, ChatMessage>();
  const payloads: ChatMessage[][] = [];
  const payload = () => [
    ...systems,
    ...conversation.slice(from, to).map((message, index) => replaced.get(from + index) ?? message),
  ];
  payloads.push(payload());
  for (const step of steps) {
    switch (step.kind) {
      case 'grow':
        to = Math.min(conversation.length, to + step.by);
        while (step.whole && to < conversation.length && conversation[to]!.role === 'tool') to++;
        break;
      case 'leave-out-oldest':
        from = Math.min(to, from + step.by);
        while (step.whole && from < to && conversation[from]!.role === 'tool') from++;
        break;
      case 'move-back':
        from = Math.max(0, from - step.by);
        break;
      case 'shrink':
        to = Math.max(from, to - step.by);
        break;
      case 'replace': {
        if (to === from) break;
        const at = from + (step.at % (to - from));
        replaced.set(at, freezeDeep(unit(step.with))[0]!);
        break;
      }
      case 'systems':
        systems =
          step.fresh || step.count !== systems.length
            ? freezeDeep(
                Array.from({ length: step.count }, (_, index) => ({
                  role: 'system' as const,
                  content: `prompt ${index}`,
                })),
              )
            : systems;
        break;
    }
    payloads.push(payload());
  }
  return payloads;
}
