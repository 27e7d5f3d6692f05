import { createHash, type Hash, hash as oneShotHash } from 'node:crypto';

import { type ChatMessage } from '@ctxkit/core';
import { contentText } from '@ctxkit/core/strategy-kit';

import { computedOnce } from '../computed-once';

const digests = new WeakMap<Readonly<ChatMessage>, string>();

/** Digest of one message's role, content, tool calls and call id (cached by message identity). */
function messageDigest(message: Readonly<ChatMessage>): string {
  return computedOnce(digests, message, digestOf);
}

function digestOf(message: Readonly<ChatMessage>): string {
  const canonical = JSON.stringify([
    message.role,
    typeof message.content === 'string' || message.content === null ? message.content : contentText(message.content),
    message.role === 'assistant'
      ? (message.tool_calls ?? []).map((call) => [call.id, call.function.name, call.function.arguments])
      : null,
    message.role === 'tool' ? message.tool_call_id : null,
  ]);
  // The one-shot form: the same SHA-256, without a hash object per message (half the time over a long history).
  return oneShotHash('sha256', canonical, 'base64');
}

/** The running hash after the first `length` messages of a range, and the fingerprint it gives. */
interface Checkpoint {
  length: number;
  /** Not finalised: copied to go on. */
  hash: Hash;
  fingerprint: string;
}

/** What was hashed from one first message on: the message objects, and a few places to stop or go on from. */
interface RangeMemo {
  messages: Array<Readonly<ChatMessage>>;
  /** Ascending by length; each within `messages`. */
  checkpoints: Checkpoint[];
}

/** Checkpoints kept per range start: the covered prefix and the batch a fold is about to add to it. */
const MAX_CHECKPOINTS = 4;

/**
 * Memos by the identity of the range's first message (the conversation's first for a prefix, a batch's first for a
 * batch).
 */
const memos = new WeakMap<Readonly<ChatMessage>, RangeMemo>();

function hashFrom(
  start: Checkpoint | undefined,
  messages: ReadonlyArray<Readonly<ChatMessage>>,
  from: number,
  to: number,
): Hash {
  const hash = start ? start.hash.copy() : createHash('sha256');
  for (let index = from + (start?.length ?? 0); index < to; index++) hash.update(messageDigest(messages[index]!));
  return hash;
}

/**
 * Fingerprint of `messages[from, to)`: a SHA-256 over the per-message digests. Used to recognise
 * that the caller's history still starts with the messages a summary covers (re-sync), and that
 * the turns to fold have not changed (failure back-off).
 *
 * Asked again for the same range of a growing history (every turn), it checks that the range still
 * holds the same message objects (one comparison a message) and answers from memory; a longer range
 * goes on from where the shorter one stopped, so only new messages are digested. A message object
 * that differs is digested by its content, and the hash is taken again from the last point before it.
 */
export function historyFingerprint(messages: ReadonlyArray<Readonly<ChatMessage>>, from: number, to: number): string {
  const length = to - from;
  if (length <= 0) return `${length}:${createHash('sha256').digest('base64url')}`;
  const first = messages[from]!;
  const memo = computedOnce(memos, first, (): RangeMemo => ({ messages: [], checkpoints: [] }));
  // How far the range still holds the objects hashed before.
  const known = memo.messages;
  const limit = Math.min(known.length, length);
  let same = 0;
  while (same < limit && known[same] === messages[from + same]) same++;
  if (same < limit) {
    // A different object inside the range: what was hashed from it on no longer applies.
    known.length = same;
    memo.checkpoints = memo.checkpoints.filter((checkpoint) => checkpoint.length <= same);
  }
  for (let index = known.length; index < length; index++) known.push(messages[from + index]!);

  let start: Checkpoint | undefined;
  for (const checkpoint of memo.checkpoints) {
    if (checkpoint.length === length) return checkpoint.fingerprint;
    if (checkpoint.length < length) start = checkpoint;
  }
  const hash = hashFrom(start, messages, from, to);
  const checkpoint: Checkpoint = { length, hash: hash.copy(), fingerprint: `${length}:${hash.digest('base64url')}` };
  const checkpoints = [...memo.checkpoints, checkpoint].sort((a, b) => a.length - b.length);
  if (checkpoints.length > MAX_CHECKPOINTS) checkpoints.splice(checkpoints.indexOf(checkpoint) === 0 ? 1 : 0, 1);
  memo.checkpoints = checkpoints;
  return checkpoint.fingerprint;
}
