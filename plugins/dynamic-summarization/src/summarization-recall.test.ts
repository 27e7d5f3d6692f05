import 'reflect-metadata';

import { type ChatMessage, type ContextSession, createContextRuntime, type LLMPayload } from '@ctxkit/core';
import { ScriptedLLMClient } from '@ctxkit/core/testing';

const SYSTEM = 'You are a helpful personal assistant.';
const START = Date.UTC(2026, 2, 2, 9, 30);
const DAY = 24 * 3600 * 1000;

/** A long chat about cooking, with `facts` said by the user at the given turns. */
function chat(turns: number, facts: Record<number, string>): ChatMessage[] {
  const history: ChatMessage[] = [];
  for (let turn = 0; turn < turns; turn++) {
    history.push({
      role: 'user',
      content: facts[turn] ?? `Turn ${turn}: what else could I cook with leftover rice and some vegetables tonight?`,
    });
    history.push({
      role: 'assistant',
      content:
        `Turn ${turn}: a fried rice with peas, carrots and a beaten egg works well; season with soy sauce ` +
        `and scallions.`,
    });
  }
  return history;
}

async function replay(session: ContextSession, history: ChatMessage[], clock: { now: number }): Promise<void> {
  for (let end = 2; end <= history.length; end += 2) {
    clock.now = START + (end / 2) * DAY;
    await session.composePayload(SYSTEM, history.slice(0, end - 1), []);
    await session.onTurnComplete(history.slice(0, end));
    await session.whenIdle?.();
  }
}

function recallStats(payload: LLMPayload): { memoryYieldedTokens: number; hits: unknown[] } {
  return (payload.stats.extra as { recall: { memoryYieldedTokens: number; hits: unknown[] } }).recall;
}

describe('std-summarization-strategy with recall', () => {
  // Many early turns about one thing: more than recall's own share of the room holds.
  const facts: Record<number, string> = { 4: 'By the way, my locker code at the Riverside climbing gym is 4417.' };
  for (let turn = 10; turn < 150; turn += 1)
    facts[turn] =
      `At the Riverside climbing gym I tried the overhang route number ${turn} and my forearms gave out at the crux.`;
  const question = 'Which overhang routes did I try at the Riverside climbing gym, and what was my locker code there?';

  /** A session after the chat, its summaries written by a model that answers `summary` each time. */
  async function sessionAfterChat(summary: string[]) {
    const clock = { now: START };
    // Each fold's summary a few lines longer than the last (never longer than what it replaces).
    const llm = new ScriptedLLMClient(
      [(_request, call) => `<summary>\n${summary.slice(0, 3 * (call + 1)).join('\n')}\n</summary>`],
      { repeatLast: true },
    );
    const runtime = await createContextRuntime({ llm, now: () => clock.now });
    const config = { maxContextTokens: 6000, reserveOutputTokens: 0, checkSummaries: false, recall: {} };
    const agent = await runtime.loadAgent({
      id: 'assistant',
      contextStrategy: { type: 'plugin', pluginId: 'std-summarization-strategy', config },
    });
    const session = agent.forSession('chat-1');
    const history = chat(200, facts);
    await replay(session, history, clock);
    return { session, history, clock };
  }

  it(
    "gives the summary's room to the older turns a question needs, when they bear on it more than the summary's " +
      'lines',
    async () => {
      const aboutCooking = Array.from(
        { length: 60 },
        (_, line) =>
          `- Evening ${line}: the user cooked fried rice with peas, carrots and egg, seasoned with soy sauce and ` +
          `scallions.`,
      );
      const { session, history } = await sessionAfterChat(aboutCooking);
      const payload = await session.composePayload(SYSTEM, [...history, { role: 'user', content: question }], []);

      expect(recallStats(payload).memoryYieldedTokens).toBeGreaterThan(0);
      const recalled = payload.messages.find(
        (message) => typeof message.content === 'string' && message.content.includes('<recalled-turns>'),
      );
      expect(String(recalled?.content)).toContain('overhang route number');
      expect(payload.stats.budget.used).toBeLessThanOrEqual(payload.stats.budget.available);
      // The summary gave up room: it is shortened or left out, and said so.
      expect(['shortened', 'left-out']).toContain((payload.stats.extra as { summaryOutcome: string }).summaryOutcome);
    },
  );

  it("keeps the summary's room when its lines bear on the question as much as the older turns do", async () => {
    const aboutClimbing = Array.from(
      { length: 60 },
      (_, line) => `- The user tried overhang route ${line} at the Riverside climbing gym (locker code 4417).`,
    );
    const { session, history } = await sessionAfterChat(aboutClimbing);
    const payload = await session.composePayload(SYSTEM, [...history, { role: 'user', content: question }], []);

    expect(recallStats(payload).memoryYieldedTokens).toBe(0);
    expect((payload.stats.extra as { summaryOutcome: string }).summaryOutcome).toBe('sent');
  });

  it('gives recall all the room the summary keeps above when the same question comes after a pause', async () => {
    const aboutClimbing = Array.from(
      { length: 60 },
      (_, line) => `- The user tried overhang route ${line} at the Riverside climbing gym (locker code 4417).`,
    );
    const { session, history, clock } = await sessionAfterChat(aboutClimbing);
    clock.now += DAY;
    const payload = await session.composePayload(SYSTEM, [...history, { role: 'user', content: question }], []);

    expect(recallStats(payload).memoryYieldedTokens).toBeGreaterThan(0);
    expect((payload.stats.extra as { summaryOutcome: string }).summaryOutcome).toBe('left-out');
    const recalled = payload.messages.find(
      (message) => typeof message.content === 'string' && message.content.includes('<recalled-turns>'),
    );
    expect(String(recalled?.content)).toContain('overhang route number');
    expect(payload.stats.budget.used).toBeLessThanOrEqual(payload.stats.budget.available);
    // The summary's turns are reported, not lost: as summarized before, as recalled or dropped now.
    expect(payload.stats.reductions.some((record) => record.action === 'recalled')).toBe(true);
  });
});
