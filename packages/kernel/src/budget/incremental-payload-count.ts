import { type ChatMessage, type ITokenCounter } from '@ctxkit/core';

import { CalibratedTokenCounter } from '../count-calibration/calibrated-token-counter';
import { keptMessages, leadingSystemMessages, payloadContinuation } from '../providers/payload-continuation';

type Messages = ReadonlyArray<Readonly<ChatMessage>>;

/** What a message count depends on besides the message: the counter, and its correction when it is calibrated. */
function correctionOf(counter: ITokenCounter): number {
  return counter instanceof CalibratedTokenCounter ? counter.calibration.correction : 1;
}

function sum(counter: ITokenCounter, messages: Messages, from: number, to: number): number {
  let total = 0;
  for (let index = from; index < to; index++) total += counter.countMessage(messages[index]!);
  return total;
}

/**
 * The pre-send count of one conversation's payloads, `counter.countMessages(messages)`, paying for
 * what changed since the previous payload rather than for every message again: when the payload
 * repeats a run of the previous payload's messages (the same objects; see `payloadContinuation`),
 * its count is the previous total less the messages left out plus its own. The result is the same
 * number a full count gives (each message counted by the counter's own rule). The previous payload
 * is counted again in full when the counter or its calibrated correction changed.
 */
export class IncrementalPayloadCount {
  private previous: Messages = [];
  private previousBodyStart = 0;
  private previousTotal = 0;
  private counter: ITokenCounter | undefined;
  private correction = 1;

  /** Tokens of the messages by `counter` (tool definitions are not included). */
  countMessages(counter: ITokenCounter, messages: Messages): number {
    const correction = correctionOf(counter);
    const run =
      counter === this.counter && correction === this.correction
        ? payloadContinuation(this.previous, this.previousBodyStart, messages)
        : undefined;
    let total: number;
    let bodyStart: number;
    if (run) {
      const previous = this.previous;
      const runEnd = run.bodyStart + run.length;
      const left =
        sum(counter, previous, 0, run.previousStart) +
        sum(counter, previous, run.previousStart + run.length, previous.length);
      total =
        sum(counter, messages, 0, run.bodyStart) +
        (this.previousTotal - left) +
        sum(counter, messages, runEnd, messages.length);
      bodyStart = run.bodyStart;
    } else {
      total = counter.countMessages(messages);
      bodyStart = leadingSystemMessages(messages);
    }
    this.previous = keptMessages(messages);
    this.previousBodyStart = bodyStart;
    this.previousTotal = total;
    this.counter = counter;
    this.correction = correction;
    return total;
  }
}
