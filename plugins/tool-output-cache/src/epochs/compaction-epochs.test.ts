import { type ChatMessage, EpochNotFoundError } from '@ctxkit/core';
import { ScriptedLLMClient } from '@ctxkit/core/testing';

import { TranscriptMissingError } from '../compaction/transcript';
import { exchange, longHistory, output, strategyOn, SUMMARY_REPLY } from '../test-support';

const SYSTEM = 'You are a coding agent.';
const usage = (total: number) => ({
  input_tokens: total,
  output_tokens: 0,
  cache_creation_tokens: 0,
  cache_read_tokens: 0,
  total_tokens: total,
});
const wire = (messages: ReadonlyArray<ChatMessage>) => JSON.stringify(messages);
const config = { maxContextTokens: 8000, compaction: { retryAfterTokens: 1000 } };

function scripted() {
  return new ScriptedLLMClient([SUMMARY_REPLY], { repeatLast: true });
}

describe('compaction epochs', () => {
  it('keeps a compaction as an epoch naming what it replaced and its transcript, and reports it', async () => {
    const { strategy, named } = strategyOn(config, { llm: scripted() });
    const history = longHistory(4, 10);
    strategy.requestCompaction();
    const result = await strategy.checkCompaction('before-return', history);
    expect(result.compacted).toBe(true);
    const state = strategy.compactionState!;
    const epochs = await strategy.epochs();
    expect(epochs).toEqual([
      expect.objectContaining({
        id: 'e1',
        kind: 'compaction',
        range: { from: 0, to: state.keepFrom },
        tokensBefore: state.tokensBefore,
        tokensAfter: state.tokensAfter,
      }),
    ]);
    expect(epochs[0]!.description).toContain(`messages 0–${state.keepFrom - 1}`);
    expect(epochs[0]!.description).toContain(state.transcriptRef);
    expect(named('epoch-recorded')).toEqual([expect.objectContaining({ epoch: epochs[0], sessionId: 'session-1' })]);
  });

  it(
    'undo gives back the transcript as the history, and composing it gives the payload composed before, byte for ' +
      'byte',
    async () => {
      const { strategy, named } = strategyOn(config, { llm: scripted() });
      const history = longHistory(4, 10);
      const before = await strategy.composePayload(SYSTEM, history, []);
      strategy.requestCompaction();
      const compacted = await strategy.checkCompaction('before-return', history);
      const after = await strategy.composePayload(SYSTEM, compacted.messages!, []);
      expect(wire(after.messages)).not.toBe(wire(before.messages));

      const undone = await strategy.undo('e1');
      expect(undone.history).toEqual(history);
      expect(undone.undone).toMatchObject({ id: 'e1', kind: 'compaction' });
      expect(undone.alsoUndone).toEqual([]);
      expect(strategy.compactionState).toBeUndefined();
      const restored = await strategy.composePayload(SYSTEM, undone.history!, []);
      expect(wire(restored.messages)).toBe(wire(before.messages));
      // The caller's own copy of the history maps the same way.
      expect(wire((await strategy.composePayload(SYSTEM, history, [])).messages)).toBe(wire(before.messages));
      expect(named('epoch-undone')).toEqual([
        expect.objectContaining({ epoch: undone.undone, alsoUndone: [], historyRestored: true }),
      ]);
      expect(await strategy.epochs()).toEqual([]);
      await expect(strategy.undo('e1')).rejects.toBeInstanceOf(EpochNotFoundError);
    },
  );

  it(
    'undo of a second compaction restores the first, whether the caller passes its full history or the compacted ' +
      'one',
    async () => {
      for (const form of ['full', 'adopted'] as const) {
        const { strategy } = strategyOn(config, { llm: scripted() });
        const first = longHistory(4, 10);
        strategy.requestCompaction();
        const once = await strategy.checkCompaction('before-return', first);
        const base = form === 'full' ? first : once.messages!;
        const grown: ChatMessage[] = [
          ...base,
          ...exchange('d0', output('more0', 10)),
          ...exchange('d1', output('more1', 10)),
          { role: 'assistant', content: 'Still on it.' },
          { role: 'user', content: 'And now?' },
        ];
        const between = await strategy.composePayload(SYSTEM, grown, []);
        const firstState = strategy.compactionState!;
        strategy.requestCompaction();
        expect((await strategy.checkCompaction('before-return', grown)).compacted).toBe(true);
        expect(strategy.compactionState!.count).toBe(2);

        const undone = await strategy.undo('e2');
        expect(undone.history).toEqual(grown);
        expect(strategy.compactionState).toMatchObject({
          count: 1,
          keepFrom: firstState.keepFrom,
          transcriptRef: firstState.transcriptRef,
          prefix: firstState.prefix,
        });
        expect(wire((await strategy.composePayload(SYSTEM, undone.history!, [])).messages)).toBe(
          wire(between.messages),
        );
        expect((await strategy.epochs()).map((epoch) => epoch.id)).toEqual(['e1']);
      }
    },
  );

  it(
    'after an undo the next checkpoint does not compact the same history again; it does once the history has ' +
      'grown, or on a compact request',
    async () => {
      const llm = scripted();
      const { strategy } = strategyOn(config, { llm });
      const history = longHistory(4, 10);
      expect((await strategy.checkCompaction('after-llm-call', history, usage(7000))).compacted).toBe(true);
      const undone = await strategy.undo('e1');
      const again = await strategy.checkCompaction('after-llm-call', undone.history!, usage(7000));
      expect(again).toMatchObject({ compacted: false, reason: expect.stringMatching(/anti-loop guard/) });
      await strategy.composePayload(SYSTEM, undone.history!, []);
      expect(strategy.compactionState).toBeUndefined();
      expect(llm.requests).toHaveLength(1);
      // Grown by more than retryAfterTokens: the threshold compacts again.
      const grown: ChatMessage[] = [
        ...undone.history!,
        ...exchange('g0', output('grown', 120)),
        { role: 'assistant', content: 'Read it.' },
        { role: 'user', content: 'Next?' },
      ];
      expect((await strategy.checkCompaction('after-llm-call', grown, usage(7000))).compacted).toBe(true);
      await strategy.undo('e2');
      strategy.requestCompaction();
      expect((await strategy.checkCompaction('before-return', grown)).compacted).toBe(true);
      expect(llm.requests).toHaveLength(3);
    },
  );

  it(
    'another instance on the same store (a restarted process) undoes it: the transcript as history, the payload ' +
      'composed before',
    async () => {
      const first = strategyOn(config, { llm: scripted() });
      const history = longHistory(4, 10);
      const before = await first.strategy.composePayload(SYSTEM, history, []);
      first.strategy.requestCompaction();
      await first.strategy.checkCompaction('before-return', history);
      first.strategy.dispose();

      const restarted = strategyOn(config, { llm: scripted(), store: first.context.store });
      expect((await restarted.strategy.epochs()).map((epoch) => epoch.kind)).toEqual(['compaction']);
      const undone = await restarted.strategy.undo('e1');
      expect(undone.history).toEqual(history);
      expect(wire((await restarted.strategy.composePayload(SYSTEM, undone.history!, [])).messages)).toBe(
        wire(before.messages),
      );
    },
  );

  it('leaves the epoch to undo again when the transcript is gone, changing nothing', async () => {
    const { strategy, context } = strategyOn(config, { llm: scripted() });
    const history = longHistory(4, 10);
    strategy.requestCompaction();
    await strategy.checkCompaction('before-return', history);
    const state = strategy.compactionState!;
    await context.store.deleteBlob({
      agentId: context.agentId,
      sessionId: context.sessionId,
      kind: 'transcript',
      name: state.transcriptRef.slice('transcript:'.length),
    });
    await expect(strategy.undo('e1')).rejects.toBeInstanceOf(TranscriptMissingError);
    expect(strategy.compactionState).toBe(state);
    expect((await strategy.epochs()).map((epoch) => epoch.id)).toEqual(['e1']);
  });

  it('answers an id it does not have with EpochNotFoundError naming the ones it has', async () => {
    const { strategy } = strategyOn(config, { llm: scripted() });
    await expect(strategy.undo('e1')).rejects.toMatchObject({ code: 'CTXKIT_EPOCH_NOT_FOUND' });
    strategy.requestCompaction();
    await strategy.checkCompaction('before-return', longHistory(4, 10));
    await expect(strategy.undo('e7')).rejects.toThrow(/did you mean "e1"/);
  });
});
