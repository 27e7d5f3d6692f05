import fc from 'fast-check';

import type { ChatMessage } from '../contracts/chat-message';
import { arbHistory, arbHostileHistory } from '../testing/generators';
import { freezeDeep } from './freeze-deep';

/** Every object reachable from `value` through own data properties. */
function reachableObjects(value: unknown): object[] {
  const found = new Set<object>();
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const current = stack.pop();
    if (current === null || (typeof current !== 'object' && typeof current !== 'function') || found.has(current))
      continue;
    found.add(current);
    for (const key of Reflect.ownKeys(current)) {
      const descriptor = Reflect.getOwnPropertyDescriptor(current, key);
      if (descriptor && 'value' in descriptor) stack.push(descriptor.value);
    }
  }
  return [...found];
}

describe('freezeDeep', () => {
  it('freezes every object of a history, so that writing to any part of it throws', () => {
    fc.assert(
      fc.property(fc.oneof(arbHistory(), arbHostileHistory()), (history) => {
        const frozen = freezeDeep(history);
        expect(frozen).toBe(history);
        for (const object of reachableObjects(history)) expect(Object.isFrozen(object)).toBe(true);
      }),
      { numRuns: 50 },
    );
  });

  it('throws on a write anywhere in a frozen message', () => {
    const message = freezeDeep<ChatMessage>({
      role: 'assistant',
      content: null,
      tool_calls: [{ id: 'c1', type: 'function', function: { name: 'search', arguments: '{}' } }],
      reasoning: [{ provider: 'anthropic', data: { signature: 'abc', nested: { list: [1, 2] } } }],
    });
    if (message.role !== 'assistant') throw new Error('an assistant message');
    expect(() => {
      message.tool_calls![0]!.function.name = 'other';
    }).toThrow(TypeError);
    expect(() => {
      (message.reasoning![0]!.data.nested as { list: number[] }).list.push(3);
    }).toThrow(TypeError);
    expect(() => {
      message.tool_calls!.pop();
    }).toThrow(TypeError);
  });

  it('walks into objects that were frozen without their parts', () => {
    const part = { type: 'text', text: 'hi' };
    const shallow = Object.freeze({ role: 'user', content: [part] });
    freezeDeep(shallow);
    expect(Object.isFrozen(shallow.content)).toBe(true);
    expect(Object.isFrozen(part)).toBe(true);
  });

  it('freezes symbol-keyed and non-enumerable properties, without calling getters', () => {
    const hidden = { value: 1 };
    const bySymbol = { value: 2 };
    const key = Symbol('key');
    const object: Record<string | symbol, unknown> = { [key]: bySymbol };
    Object.defineProperty(object, 'hidden', { value: hidden, enumerable: false });
    const getter = jest.fn(() => ({ fresh: true }));
    Object.defineProperty(object, 'computed', { get: getter, enumerable: true });
    freezeDeep(object);
    expect([object, hidden, bySymbol].map((value) => Object.isFrozen(value))).toEqual([true, true, true]);
    expect(getter).not.toHaveBeenCalled();
  });

  it('ends on cycles and shared objects', () => {
    const shared = { text: 'shared' };
    const node: { self?: unknown; list: unknown[] } = { list: [shared, shared] };
    node.self = node;
    node.list.push(node);
    expect(freezeDeep(node)).toBe(node);
    expect([node, node.list, shared].every((value) => Object.isFrozen(value))).toBe(true);
  });

  it('leaves typed arrays and buffers writable (they cannot be frozen) and returns primitives as they are', () => {
    const bytes = new Uint8Array([1, 2, 3]);
    const holder = freezeDeep({ bytes, buffer: new ArrayBuffer(4) });
    expect(Object.isFrozen(holder)).toBe(true);
    bytes[0] = 9;
    expect(bytes[0]).toBe(9);
    expect(freezeDeep('text')).toBe('text');
    expect(freezeDeep(null)).toBeNull();
    expect(freezeDeep(undefined)).toBeUndefined();
  });
});
