import type { ChatMessage } from '@ctxkit/core';

import { originOf } from './message-origin';

/** What the model reads of a message (an output's cache ref is the strategy's, not the model's). */
function readKey(message: Readonly<ChatMessage>): string {
  const { role, content } = message;
  const calls = message.role === 'assistant' ? message.tool_calls : undefined;
  const reasoning = message.role === 'assistant' ? message.reasoning : undefined;
  const callId = message.role === 'tool' ? message.tool_call_id : undefined;
  const name = message.role === 'tool' ? undefined : message.name;
  return JSON.stringify([role, content ?? null, calls ?? null, reasoning ?? null, callId ?? null, name ?? null]);
}

/**
 * The payload's messages with each copy of a history message that reads the same (a strategy that
 * copies messages, or adds a cache ref to an output it shows whole) replaced by that history
 * message, so that it converts back to exactly the AI SDK message it came from. Copies are matched
 * in order from the newest (strategies keep the newest history), so a kept window of messages is
 * matched exactly even where older messages read the same. Messages the strategy wrote or changed
 * stay as they are.
 */
export function restoreUnchangedMessages(
  sent: ReadonlyArray<ChatMessage>,
  history: ReadonlyArray<ChatMessage>,
): ChatMessage[] {
  if (sent.every((message) => originOf(message) !== undefined)) return [...sent];
  const positions = new Map<string, number[]>();
  const indexes = new Map<Readonly<ChatMessage>, number>();
  history.forEach((message, index) => {
    indexes.set(message, index);
    if (!originOf(message)) return;
    const key = readKey(message);
    const list = positions.get(key);
    if (list) list.push(index);
    else positions.set(key, [index]);
  });
  const restored = [...sent];
  let before = history.length;
  for (let at = sent.length - 1; at >= 0; at--) {
    const message = sent[at]!;
    if (originOf(message)) {
      before = Math.min(before, indexes.get(message) ?? before);
      continue;
    }
    const list = positions.get(readKey(message));
    let match: number | undefined;
    for (let candidate = (list?.length ?? 0) - 1; candidate >= 0; candidate--) {
      if (list![candidate]! < before) {
        match = list![candidate];
        break;
      }
    }
    if (match === undefined) continue;
    before = match;
    restored[at] = history[match]!;
  }
  return restored;
}
