import type { ChatMessage, LLMPayload, ToolMessage } from '@ctxkit/core';
import { ScriptedLLMClient } from '@ctxkit/core/testing';

import { exchange, longHistory, output, strategyOn, SUMMARY_REPLY } from '../test-support';
import { isMicroCompacted, isTrimmed } from '../view/lighter-form';

const SYSTEM = 'You are a coding agent.';
/**
 * The tool output budget trims the oldest outputs of {@link longHistory}(5, 20) (three of them), each as soon as it is
 * due.
 */
const budgeted = {
  minReclaimTokens: 0,
  toolOutputCache: { contextBudgetTokens: 1000 },
  microCompact: { enabled: false },
  compaction: { enabled: false },
};

function placeholders(payload: LLMPayload): string[] {
  return payload.messages
    .filter(
      (message): message is ToolMessage => message.role === 'tool' && (isTrimmed(message) || isMicroCompacted(message)),
    )
    .map((message) => message.tool_call_id);
}

function shown(payload: LLMPayload, toolCallId: string): string {
  const message = payload.messages.find(
    (candidate): candidate is ToolMessage => candidate.role === 'tool' && candidate.tool_call_id === toolCallId,
  );
  return typeof message?.content === 'string' ? message.content : '';
}

function outputOf(history: ReadonlyArray<ChatMessage>, toolCallId: string): string {
  return (history.find((message) => message.role === 'tool' && message.tool_call_id === toolCallId) as ToolMessage)
    .content as string;
}

describe('trim epochs', () => {
  it('keeps the outputs a payload shows as placeholders for the first time as one epoch, and only once', async () => {
    const { strategy, named } = strategyOn(budgeted);
    const history = longHistory(5, 20);
    const payload = await strategy.composePayload(SYSTEM, history, []);
    const trimmed = placeholders(payload);
    expect(trimmed.length).toBeGreaterThan(1);
    const epochs = await strategy.epochs();
    expect(epochs).toHaveLength(1);
    expect(epochs[0]).toMatchObject({ id: 'e1', kind: 'trim', turn: 2 });
    expect(epochs[0]!.description).toMatch(new RegExp(`^trimmed ${trimmed.length} tool outputs to placeholders: `));
    for (const id of trimmed)
      expect(epochs[0]!.description).toContain(
        `execute_bash ${id} ` +
          `(#${history.findIndex((message) => message.role === 'tool' && message.tool_call_id === id)})`,
      );
    expect(epochs[0]!.tokensAfter).toBeGreaterThan(0);
    expect(named('epoch-recorded')).toEqual([expect.objectContaining({ epoch: epochs[0] })]);

    // The same placeholders in the next payloads change nothing: no new epoch.
    await strategy.composePayload(SYSTEM, history, []);
    await strategy.composePayload(
      SYSTEM,
      [...history, { role: 'assistant', content: 'On it.' }, { role: 'user', content: 'Thanks.' }],
      [],
    );
    expect(await strategy.epochs()).toHaveLength(1);
  });

  it(
    'records only the placeholders the payload carries: the older history the window leaves out is no ' + 'trim',
    async () => {
      const { strategy } = strategyOn({
        maxContextTokens: 4000,
        cutBackRatio: 1,
        microCompact: { enabled: false },
        compaction: { enabled: false },
      });
      const history = longHistory(200, 20);
      const payload = await strategy.composePayload(SYSTEM, history, []);
      const firstSent = history.findIndex((message) => payload.messages.includes(message));
      expect(firstSent).toBeGreaterThan(100);
      const epochs = await strategy.epochs();
      expect(epochs).toHaveLength(1);
      expect(epochs[0]!.range!.from).toBeGreaterThanOrEqual(firstSent - 1);
      expect(epochs[0]!.description).toMatch(new RegExp(`^trimmed ${placeholders(payload).length} tool outputs`));
    },
  );

  it('one epoch per payload that trims more: a later payload names only its new placeholders', async () => {
    const { strategy } = strategyOn(budgeted);
    const history = longHistory(5, 20);
    const first = placeholders(await strategy.composePayload(SYSTEM, history, []));
    const grown: ChatMessage[] = [
      ...history,
      ...exchange('c5', output('out5', 20)),
      ...exchange('c6', output('out6', 20)),
      { role: 'assistant', content: 'More.' },
      { role: 'user', content: 'Go on again.' },
    ];
    const second = placeholders(await strategy.composePayload(SYSTEM, grown, []));
    const added = second.filter((id) => !first.includes(id));
    expect(added.length).toBeGreaterThan(0);
    const epochs = await strategy.epochs();
    expect(epochs.map((epoch) => epoch.kind)).toEqual(['trim', 'trim']);
    for (const id of added) expect(epochs[1]!.description).toContain(` ${id} (`);
    for (const id of first) expect(epochs[1]!.description).not.toContain(` ${id} (`);
  });

  it('undo of a trim shows its outputs whole again, and keeps them whole in the payloads after', async () => {
    const { strategy, named } = strategyOn(budgeted);
    const history = longHistory(5, 20);
    const trimmed = placeholders(await strategy.composePayload(SYSTEM, history, []));
    const undone = await strategy.undo('e1');
    expect(undone.history).toBeUndefined();
    expect(named('epoch-undone')).toEqual([expect.objectContaining({ historyRestored: false })]);
    const after = await strategy.composePayload(SYSTEM, history, []);
    for (const id of trimmed) expect(shown(after, id)).toBe(outputOf(history, id));
    // Whole from then on: more turns do not trim them again.
    const grown: ChatMessage[] = [
      ...history,
      ...exchange('c5', output('out5', 20)),
      { role: 'assistant', content: 'More.' },
      { role: 'user', content: 'Go on again.' },
    ];
    const later = await strategy.composePayload(SYSTEM, grown, []);
    for (const id of trimmed) expect(shown(later, id)).toBe(outputOf(history, id));
    expect(
      (await strategy.epochs()).every((epoch) => trimmed.every((id) => !epoch.description.includes(` ${id} (`))),
    ).toBe(true);
  });

  it(
    'an output taken back stays whole while it fits: under pressure the other older outputs give way ' + 'first',
    async () => {
      const roomy = { microCompact: { enabled: false }, compaction: { enabled: false } };
      const history = longHistory(8, 40);
      const calls = history
        .filter((message): message is ToolMessage => message.role === 'tool')
        .map((message) => message.tool_call_id);
      const whole = await strategyOn({ ...roomy, maxContextTokens: 100_000 }).strategy.composePayload(
        SYSTEM,
        history,
        [],
      );
      const { strategy } = strategyOn({ ...roomy, cutBackRatio: 1, maxContextTokens: whole.stats.budget.used - 100 });
      const trimmed = placeholders(await strategy.composePayload(SYSTEM, history, []));
      expect(trimmed).toEqual(calls.slice(0, trimmed.length));
      await strategy.undo('e1');
      const after = await strategy.composePayload(SYSTEM, history, []);
      for (const id of trimmed) expect(shown(after, id)).toBe(outputOf(history, id));
      // The oldest outputs not taken back made the room instead.
      const instead = placeholders(after);
      expect(instead.length).toBeGreaterThan(0);
      expect(instead).toEqual(calls.slice(trimmed.length, trimmed.length + instead.length));
      const epochs = await strategy.epochs();
      expect(epochs).toHaveLength(1);
      for (const id of instead) expect(epochs[0]!.description).toContain(` ${id} (`);

      // When the view cannot fit even so, they give way too (after the others), as a new trim that can be undone again.
      const { strategy: tight } = strategyOn({
        ...roomy,
        cutBackRatio: 1,
        maxContextTokens: whole.stats.budget.used - 3000,
      });
      const first = placeholders(await tight.composePayload(SYSTEM, history, []));
      await tight.undo('e1');
      const squeezed = placeholders(await tight.composePayload(SYSTEM, history, []));
      expect(squeezed).toEqual(expect.arrayContaining(calls.filter((id) => !first.includes(id))));
      expect(squeezed).toContain(first[0]);
      const again = await tight.epochs();
      expect(again.map((epoch) => epoch.kind)).toEqual(['trim']);
      expect(again[0]!.description).toContain(` ${first[0]} (`);
    },
  );

  it(
    'undoing an older epoch undoes the later ones: a trim before a compaction gives back the history and the ' +
      'outputs',
    async () => {
      const llm = new ScriptedLLMClient([SUMMARY_REPLY], { repeatLast: true });
      const { strategy } = strategyOn({ ...budgeted, compaction: { enabled: true } }, { llm });
      const history = longHistory(5, 20);
      const trimmed = placeholders(await strategy.composePayload(SYSTEM, history, []));
      strategy.requestCompaction();
      expect((await strategy.checkCompaction('before-return', history)).compacted).toBe(true);
      expect((await strategy.epochs()).map((epoch) => `${epoch.id} ${epoch.kind}`)).toEqual([
        'e1 trim',
        'e2 compaction',
      ]);

      const undone = await strategy.undo('e1');
      expect(undone.undone.id).toBe('e1');
      expect(undone.alsoUndone.map((epoch) => epoch.id)).toEqual(['e2']);
      expect(undone.history).toEqual(history);
      expect(strategy.compactionState).toBeUndefined();
      const after = await strategy.composePayload(SYSTEM, undone.history!, []);
      for (const id of trimmed) expect(shown(after, id)).toBe(outputOf(history, id));
      expect(await strategy.epochs()).toEqual([]);
    },
  );

  it('records the placeholders of micro-compact `always` once, as they appear', async () => {
    const { strategy } = strategyOn({
      minReclaimTokens: 0,
      microCompact: { when: 'always', keepRecent: 2, minContentLength: 10 },
      compaction: { enabled: false },
    });
    const history = longHistory(4, 5);
    const first = placeholders(await strategy.composePayload(SYSTEM, history, []));
    expect(first).toEqual(['c0', 'c1']);
    const grown: ChatMessage[] = [
      ...history,
      ...exchange('c4', output('out4', 5)),
      { role: 'assistant', content: 'Next.' },
      { role: 'user', content: 'Go on again.' },
    ];
    expect(placeholders(await strategy.composePayload(SYSTEM, grown, []))).toEqual(['c0', 'c1', 'c2']);
    const epochs = await strategy.epochs();
    expect(epochs.map((epoch) => epoch.description)).toEqual([
      expect.stringMatching(/^trimmed 2 tool outputs to placeholders: execute_bash c0 \(#2\), execute_bash c1 \(#4\)$/),
      expect.stringMatching(/^trimmed a tool output to placeholders: execute_bash c2 \(#6\)$/),
    ]);
    await strategy.undo('e2');
    const after = await strategy.composePayload(SYSTEM, grown, []);
    expect(placeholders(after)).toEqual(['c0', 'c1']);
    expect(shown(after, 'c2')).toBe(outputOf(grown, 'c2'));
  });
});
