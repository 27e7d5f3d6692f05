import type { ChatMessage } from '@ctxkit/core';

/**
 * Makes `target[from, source.length)` the messages of `source` there, `target` ending where `source`
 * ends: written over in place and pushed past its end. Shrinking a long array by its `length` first
 * and pushing again would make the engine move the whole array to new storage, which is what writing
 * in place avoids.
 */
export function overwriteFrom(target: ChatMessage[], from: number, source: ReadonlyArray<ChatMessage>): void {
  const end = source.length;
  const written = Math.min(target.length, end);
  for (let index = from; index < written; index++) target[index] = source[index]!;
  for (let index = Math.max(from, written); index < end; index++) target.push(source[index]!);
  if (target.length > end) target.length = end;
}
