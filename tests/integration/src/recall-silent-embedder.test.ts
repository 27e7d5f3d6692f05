import 'reflect-metadata';

import { performance } from 'node:perf_hooks';

import { type ChatMessage, createContextRuntime, hasWhenIdle, type ITextEmbedder } from '@ctxkit/core';
import type { RecallStats } from '@ctxkit/core/strategy-kit';

import { recallFillerTurn } from './recall-filler-turn';

/**
 * An embedder that never answers (and ignores its abort signal), behind `std-recall-strategy` with
 * `recall.embeddingTimeoutMs: 100`: the first payload waits for the question's vector until the
 * deadline and says `embedding: "failed"`; the next ones do not ask the embedder while it backs off
 * (`"backing-off"`); recall by words goes on all along.
 */

const BASE = Date.UTC(2023, 4, 8, 13, 56);
const MINUTE = 60_000;
const TURNS = 45;
const TARGET_TURN = 4;
const TARGET = 'My passport number is P-553201 and it expires in March 2031.';
const SYSTEM_PROMPT = 'You are a helpful assistant.';
/** Longer than the longest backoff (15 minutes): whatever failed before, the next compose asks the embedder. */
const PAST_ANY_BACKOFF = 16 * MINUTE;

function turnMessages(turn: number): ChatMessage[] {
  if (turn === TARGET_TURN)
    return [
      { role: 'user', content: TARGET },
      { role: 'assistant', content: 'Noted: passport P-553201, valid until March 2031.' },
    ];
  return recallFillerTurn(turn);
}

/** Never answers, whatever signal it gets. */
class SilentEmbedder implements ITextEmbedder {
  readonly model = 'silent-embed';
  calls = 0;

  embed(): Promise<number[][]> {
    this.calls += 1;
    return new Promise(() => undefined);
  }
}

describe('std-recall-strategy with an embedder that never answers', () => {
  it('waits for it once until embeddingTimeoutMs, then backs off, recalling by words all along', async () => {
    const embedder = new SilentEmbedder();
    let clock = BASE;
    const runtime = await createContextRuntime({ embedder, now: () => clock });
    try {
      const agent = await runtime.loadAgent({
        id: 'assistant',
        contextStrategy: {
          type: 'plugin',
          pluginId: 'std-recall-strategy',
          config: { maxContextTokens: 2000, reserveOutputTokens: 0, recall: { embeddingTimeoutMs: 100 } },
        },
      });
      const session = agent.forSession('chat-1');
      if (!hasWhenIdle(session)) throw new Error('std-recall-strategy has no whenIdle');
      let history: ChatMessage[] = [];
      for (let turn = 0; turn < TURNS; turn++) {
        clock = BASE + turn * MINUTE;
        history = [...history, ...turnMessages(turn)];
        await session.onTurnComplete(history);
      }
      const asked = [
        ...history,
        { role: 'user', content: 'Remind me when my passport expires and what its number is.' } satisfies ChatMessage,
      ];
      const compose = async () => {
        const started = performance.now();
        const payload = await session.composePayload(SYSTEM_PROMPT, asked, []);
        const text = payload.messages
          .map((message) => (typeof message.content === 'string' ? message.content : ''))
          .join('\n');
        return { ms: performance.now() - started, text, recall: payload.stats.extra!.recall as RecallStats };
      };
      const recalledByWords = (composed: { text: string; recall: RecallStats }) => {
        expect(composed.text).toContain(`user: ${TARGET}`);
        expect(composed.recall.hits).toContainEqual(
          expect.objectContaining({ sessionId: 'chat-1', from: TARGET_TURN * 2, to: TARGET_TURN * 2 + 1 }),
        );
      };

      // Embedding in the background after the turns may have failed already: past any backoff it is
      // asked again, for the question's vector.
      clock += PAST_ANY_BACKOFF;
      const first = await compose();
      expect(first.recall.embedding).toBe('failed');
      expect(first.ms).toBeGreaterThanOrEqual(90);
      expect(first.ms).toBeLessThan(1000);
      recalledByWords(first);

      const calls = embedder.calls;
      for (let round = 0; round < 3; round++) {
        clock += 1000;
        const next = await compose();
        expect(next.recall.embedding).toBe('backing-off');
        expect(next.ms).toBeLessThan(50);
        recalledByWords(next);
      }
      // Backing off is not asking: the embedder got no call since the failure.
      expect(embedder.calls).toBe(calls);

      // The background embedding gives up at its own deadline too.
      await session.whenIdle();
    } finally {
      await runtime.dispose();
    }
  });
});
