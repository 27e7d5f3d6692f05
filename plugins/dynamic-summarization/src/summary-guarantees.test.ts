import { type ChatMessage, ErrorCodes, type ILLMClient, LLMRequestError, MemoryContextStore } from '@ctxkit/core';
import { createConformanceContext, ScriptedLLMClient, type ScriptStep } from '@ctxkit/core/testing';

import { createStrategy } from './create-summarization-strategy';
import type { SummarizationConfig } from './summarization-config';
import type { SummaryReceipt } from './summarizer';
import { reservationTurn } from './test-support';

/**
 * What summarization promises whatever its model answers: a summary replaces turns only when it is
 * one. Each test drives the strategy through its public methods, turn by turn, as a host does.
 */

const SYSTEM = 'You are a helpful airline agent.';
const conversation = (turns: number): ChatMessage[] =>
  Array.from({ length: turns }, (_, index) => reservationTurn(index + 1)).flat();

/** Folds two turns once more than two are unsummarized; a failed fold is tried again at the next turn. */
const CONFIG: Partial<SummarizationConfig> = {
  threshold: 2,
  batchTurns: 2,
  retryBackoffMs: 0,
  maxConsecutiveFailures: 100,
};

function serve(llm: ILLMClient, config: Partial<SummarizationConfig>) {
  const store = new MemoryContextStore();
  const { context, events } = createConformanceContext(
    'session-1',
    { agentId: 'airline', strategyId: 'std-summarization-strategy', store, llm },
    undefined,
  );
  return { strategy: createStrategy({ ...CONFIG, ...config }, context), events, store };
}

/** Serves `turns` turns; every payload must hold the whole history verbatim and no summary. */
async function expectHistoryNeverReplaced(llm: ILLMClient, config: Partial<SummarizationConfig>, turns: number) {
  const { strategy, events, store } = serve(llm, config);
  for (let turn = 1; turn <= turns; turn++) {
    const history = conversation(turn);
    await strategy.onTurnComplete(history);
    await strategy.whenIdle();
    const payload = await strategy.composePayload(SYSTEM, history, []);
    expect(payload.messages.slice(1)).toEqual(history);
    expect(payload.stats.summarized).toBe(0);
  }
  expect(await strategy.getSummaryState()).toBeNull();
  const stored = await store.get<{ summary: unknown }>({
    agentId: 'airline',
    sessionId: 'session-1',
    kind: 'summary',
    name: 'buffer',
  });
  expect(stored?.summary ?? null).toBeNull();
  await strategy.dispose();
  return events
    .filter((event) => event.name === 'summary-error')
    .map((event) => event.payload.error as { code: string; message: string });
}

describe('summarization guarantees', () => {
  describe('a summarizer that throws mid-stream or returns an error string never replaces history', () => {
    it.each<[string, ScriptStep, string]>([
      [
        'throws after part of its answer streamed',
        {
          reply: new LLMRequestError(
            'the stream ended after 212 tokens: connection reset',
            { client: 'scripted' },
            { retryable: true },
          ),
          delayMs: 5,
        },
        ErrorCodes.LLM_REQUEST_FAILED,
      ],
      [
        'answers with a provider error instead of a summary',
        'Error: 429 Too Many Requests (rate limit exceeded). Please retry later.',
        ErrorCodes.LLM_RESPONSE_INVALID,
      ],
      [
        'wraps a provider error in summary tags',
        '<summary>Error: 503 Service Unavailable</summary>',
        ErrorCodes.LLM_RESPONSE_INVALID,
      ],
      [
        'wraps a refusal in summary tags',
        "<summary>I'm sorry, I can't help with that request.</summary>",
        ErrorCodes.LLM_RESPONSE_INVALID,
      ],
    ])('keeps every turn verbatim when the model %s', async (_label, step, code) => {
      // Summary checks off: what refuses these answers is not the identifier check.
      const llm = new ScriptedLLMClient([step], { repeatLast: true });
      const errors = await expectHistoryNeverReplaced(llm, { checkSummaries: false }, 6);
      expect(llm.callCount).toBeGreaterThanOrEqual(3);
      expect(errors).toHaveLength(llm.callCount);
      expect(errors.every((error) => error.code === code)).toBe(true);
    });
  });

  describe('an acknowledgement-only or empty summary is refused', () => {
    it.each([
      '<summary>OK</summary>',
      '<summary>Understood.</summary>',
      '<summary>Sure! Here is the updated summary:</summary>',
      '<summary>Got it, will do.</summary>',
      '<summary>\n \n</summary>',
      '',
    ])('refuses %j and keeps the turns it would fold', async (reply) => {
      const llm = new ScriptedLLMClient([reply], { repeatLast: true });
      const errors = await expectHistoryNeverReplaced(llm, { checkSummaries: false }, 5);
      expect(errors.length).toBeGreaterThan(0);
      expect(errors.every((error) => error.code === ErrorCodes.LLM_RESPONSE_INVALID)).toBe(true);
    });

    it('accepts a short summary that says something', async () => {
      const llm = new ScriptedLLMClient(
        ['<summary>The user looked up two reservations; both are confirmed.</summary>'],
        { repeatLast: true },
      );
      const { strategy } = serve(llm, { checkSummaries: false });
      await strategy.onTurnComplete(conversation(3));
      await strategy.whenIdle();
      expect((await strategy.getSummaryState())?.text).toBe('The user looked up two reservations; both are confirmed.');
      await strategy.dispose();
    });
  });

  describe('a summary that claims constraints or ids absent from the folded turns is flagged in its receipt', () => {
    it(
      'lists the invented id and constraint in stats.extra.summaryReceipt.unsupported, and none of what the turns ' +
        'say',
      async () => {
        const faithful =
          'Turns 1-2: reservation RES1001 (user user_1) is on flight HAT101; reservation RES1002 (user user_2) is on ' +
          'flight HAT102.';
        const invented =
          `${faithful}\n- The user must fly business class only.\n- Refund RES9999 to card 7781 ` +
          `before 2024-06-30.`;
        const llm = new ScriptedLLMClient([`<summary>${invented}</summary>`]);
        const { strategy } = serve(llm, {});
        const history = conversation(3);
        await strategy.onTurnComplete(history);
        await strategy.whenIdle();
        const payload = await strategy.composePayload(SYSTEM, history, []);
        const receipt = payload.stats.extra!.summaryReceipt as SummaryReceipt;
        expect(receipt.covers).toEqual({ from: 0, to: 8 });
        expect(receipt.unsupported).toEqual([
          '2024-06-30',
          'RES9999',
          '7781',
          'The user must fly business class only.',
        ]);
        // What the turns do say is never flagged, and the summary is kept (the claims are for the host to check).
        for (const item of ['RES1001', 'user_1', 'HAT101', 'RES1002', 'HAT102'])
          expect(receipt.unsupported).not.toContain(item);
        expect((await strategy.getSummaryState())?.text).toBe(invented);

        // A faithful summary of the same turns claims nothing they do not say.
        const clean = serve(new ScriptedLLMClient([`<summary>${faithful}</summary>`]), {});
        await clean.strategy.onTurnComplete(history);
        await clean.strategy.whenIdle();
        const cleanPayload = await clean.strategy.composePayload(SYSTEM, history, []);
        expect((cleanPayload.stats.extra!.summaryReceipt as SummaryReceipt).unsupported).toEqual([]);
        await strategy.dispose();
        await clean.strategy.dispose();
      },
    );
  });
});
