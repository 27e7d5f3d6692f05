import type { ChatMessage } from '@ctxkit/core';

import { InPlaceWrites } from './in-place-writes';

const message = (content: string): ChatMessage => ({ role: 'user', content });

/** What the composer is told of `array`, then that it composed with it. */
function handOut(writes: InPlaceWrites, array: ReadonlyArray<ChatMessage>): number | undefined {
  const unchanged = writes.unchangedBefore(array);
  writes.handedOut(array);
  return unchanged;
}

describe('InPlaceWrites', () => {
  it('claims nothing of an array the composer never composed with', () => {
    const writes = new InPlaceWrites();
    const array = [message('a'), message('b')];
    writes.set(array, 0, message('c'));
    expect(handOut(writes, array)).toBeUndefined();
  });

  it('says from where an array changed since the composer last composed with it, its length when nothing did', () => {
    const writes = new InPlaceWrites();
    const messages = ['a', 'b', 'c', 'd'].map(message);
    const array = messages.slice();
    handOut(writes, array);
    expect(handOut(writes, array)).toBe(4);
    // Writing what a position holds, and growing past the end, change nothing that was handed out.
    writes.set(array, 1, messages[1]!);
    writes.set(array, 4, message('e'));
    writes.overwriteFrom(array, 0, [...messages, array[4]!, message('f')]);
    expect(handOut(writes, array)).toBe(6);
    writes.set(array, 3, message('x'));
    writes.set(array, 2, message('y'));
    writes.set(array, 5, message('z'));
    expect(handOut(writes, array)).toBe(2);
    expect(handOut(writes, array)).toBe(6);
  });

  it('keeps counting changes across a compose that failed (told, never reported as composed with)', () => {
    const writes = new InPlaceWrites();
    const array = ['a', 'b', 'c', 'd'].map(message);
    handOut(writes, array);
    writes.set(array, 1, message('x'));
    expect(writes.unchangedBefore(array)).toBe(1);
    writes.set(array, 3, message('y'));
    expect(handOut(writes, array)).toBe(1);
  });

  it('counts an array cut short as changed from its new end, and written over as changed where it differs', () => {
    const writes = new InPlaceWrites();
    const messages = ['a', 'b', 'c', 'd', 'e'].map(message);
    const array = messages.slice();
    handOut(writes, array);
    writes.overwriteFrom(array, 1, messages.slice(0, 3));
    expect(array).toEqual(messages.slice(0, 3));
    expect(handOut(writes, array)).toBe(3);
    const other = [messages[0]!, message('q'), messages[2]!, messages[3]!];
    writes.overwriteFrom(array, 0, other);
    expect(array).toEqual(other);
    expect(handOut(writes, array)).toBe(1);
  });
});
