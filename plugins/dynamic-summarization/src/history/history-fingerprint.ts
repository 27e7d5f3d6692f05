import { createHash } from 'node:crypto';
import { contentText, type ChatMessage } from '@ctxkit/core';

const digests = new WeakMap<object, string>();

/** Digest of one message's role, content, tool calls and call id (cached by message identity). */
function messageDigest(message: Readonly<ChatMessage>): string {
  const cached = digests.get(message);
  if (cached !== undefined) return cached;
  const canonical = JSON.stringify([
    message.role,
    typeof message.content === 'string' || message.content === null ? message.content : contentText(message.content),
    message.role === 'assistant' ? (message.tool_calls ?? []).map((call) => [call.id, call.function.name, call.function.arguments]) : null,
    message.role === 'tool' ? message.tool_call_id : null,
  ]);
  const digest = createHash('sha256').update(canonical).digest('base64');
  digests.set(message, digest);
  return digest;
}

/**
 * Fingerprint of `messages[from, to)`: a SHA-256 over the per-message digests. Used to recognise
 * that the caller's history still starts with the messages a summary covers (re-sync), and that
 * the turns to fold have not changed (failure back-off).
 */
export function historyFingerprint(messages: ReadonlyArray<Readonly<ChatMessage>>, from: number, to: number): string {
  const hash = createHash('sha256');
  for (let index = from; index < to; index++) hash.update(messageDigest(messages[index]!));
  return `${to - from}:${hash.digest('base64url')}`;
}
