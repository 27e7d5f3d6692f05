import { type ChatMessage, freezeDeep } from '@ctxkit/core';

/** Messages the kernel froze itself: frozen all the way down, safe to share without a copy. */
const frozenByKernel = new WeakSet<object>();

/**
 * Freezes a message the kernel has just built (a user message, a tool result) and returns it.
 * Nobody else holds it, so it is frozen in place.
 */
export function freezeNewMessage<T extends ChatMessage>(message: T): T {
  freezeDeep(message);
  frozenByKernel.add(message);
  return message;
}

/**
 * A message the history may hold: the message itself when the kernel froze it (every message of
 * `agent.history()` and `result.messages`), else a frozen copy, so that neither the caller's object
 * nor the client's is ever frozen or kept. Strategies are handed these messages: immutable by
 * contract, and the same objects from one call to the next.
 */
export function frozenMessage<T extends ChatMessage>(message: T): T {
  if (frozenByKernel.has(message)) return message;
  return freezeNewMessage(structuredClone(message));
}

/**
 * A message handed over to the kernel for good, such as the history an undo restores (read back
 * from the session's store: objects nobody else holds or changes): the message itself, frozen in
 * place, rather than a copy. A message the kernel froze is kept as it is; one frozen by someone else
 * (whose parts may not be) is taken as a frozen copy.
 */
export function adoptedMessage<T extends ChatMessage>(message: T): T {
  if (frozenByKernel.has(message)) return message;
  return Object.isFrozen(message) ? freezeNewMessage(structuredClone(message)) : freezeNewMessage(message);
}
