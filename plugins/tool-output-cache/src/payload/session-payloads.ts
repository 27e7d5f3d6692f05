import type { ChatMessage } from '@ctxkit/core';
import {
  findPayloadProblems,
  type PayloadProblem,
  type PreviousPayload as ComposerPreviousPayload,
} from '@ctxkit/core/strategy-kit';

import { PayloadCheck } from './payload-check';
import { PreviousPayload } from './payload-continuation';
import { PayloadRefs, refsIn } from './payload-refs';

type Messages = ReadonlyArray<Readonly<ChatMessage>>;

/** What reading a payload found. */
export interface PayloadReading {
  /** Its tool messages that carry a ref (`stats.extra.toolOutputCache.refsInPayload`). */
  refsInPayload: number;
  /** What core's `findPayloadProblems` finds in it. */
  problems: PayloadProblem[];
}

/**
 * The payloads of one session, each read against the previous one (the composer's copy of it): the
 * refs it names and its provider-validity problems, both counted over what it changes from the
 * previous payload when it continues it (see `PreviousPayload`). A preview is read on its own, in
 * full, and changes nothing the next payload is read against.
 */
export class SessionPayloads {
  private readonly previous = new PreviousPayload();
  private readonly check = new PayloadCheck();
  private readonly refs = new PayloadRefs();

  /**
   * Reads `messages`; unless it is a preview, it is the payload the next one is read against. `sent`:
   * the payload sent before, as the composer that composed `messages` kept it (`ComposedPayload.previous`).
   */
  read(messages: Messages, preview: boolean, sent?: ComposerPreviousPayload): PayloadReading {
    if (preview) return { refsInPayload: refsIn(messages), problems: findPayloadProblems(messages) };
    const against = this.previous.against(messages, sent);
    const refsInPayload = this.refs.count(messages, against);
    const problems = this.check.problems(messages, against);
    this.previous.remember(messages);
    return { refsInPayload, problems };
  }
}
