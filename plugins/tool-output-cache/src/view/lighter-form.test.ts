import { type ChatMessage, createTokenCounter, type ToolMessage } from '@ctxkit/core';
import { lightenOldestFirst, withForms } from '@ctxkit/core/strategy-kit';
import fc from 'fast-check';

import { call, exchange, output } from '../test-support';
import { lighterFormAt, type LighterFormOptions, recordLighterForms, toolNameAt } from './lighter-form';
import { ReductionLog } from './reduction-log';

const counter = createTokenCounter({ model: 'gpt-4o' });

function history(withRefs: boolean): ChatMessage[] {
  const messages: ChatMessage[] = [{ role: 'user', content: 'Read the logs.' }];
  for (let index = 0; index < 4; index++) {
    const [call, result] = exchange(`c${index}`, output(`log${index}`, 10));
    messages.push(
      call!,
      withRefs ? { ...(result as ToolMessage), output_ref: { id: `to_${String(index).repeat(32)}` } } : result!,
    );
  }
  messages.push({ role: 'user', content: 'Fix it.' }, ...exchange('now', output('current', 10)));
  return messages;
}

interface LightenViewOptions extends LighterFormOptions {
  from: number;
  protectFrom: number;
  targetTokens: number;
  cutBackTokens?: number;
  holdThrough?: number;
  keptHeadEnd?: number;
  keepWhole?: (index: number) => boolean;
  log: ReductionLog;
}

/** Core's oldest-first lightening with this strategy's lighter forms, as a layout under pressure uses them. */
function lightenView(messages: ReadonlyArray<ChatMessage>, options: LightenViewOptions) {
  const forms = lightenOldestFirst(
    messages,
    {
      from: options.from,
      protectFrom: options.protectFrom,
      all: false,
      formAt: (history, index) => lighterFormAt(history, index, options),
      everyForm: () => [],
      ...(options.keepWhole ? { keepWhole: options.keepWhole } : {}),
    },
    {
      targetTokens: options.targetTokens,
      named: options.showRefs !== false,
      tokensAt: options.tokensAt,
      ...(options.cutBackTokens !== undefined ? { cutBackTokens: options.cutBackTokens } : {}),
      ...(options.holdThrough !== undefined ? { holdThrough: options.holdThrough } : {}),
      ...(options.keptHeadEnd !== undefined ? { keptHeadEnd: options.keptHeadEnd } : {}),
    },
  );
  recordLighterForms(forms, options.log);
  const relieved: ReadonlyArray<ChatMessage> = withForms(messages, forms);
  let totalTokens = 0;
  for (let index = options.from; index < relieved.length; index++)
    totalTokens += counter.countMessage(relieved[index]!);
  return { messages: relieved, replaced: forms.length, totalTokens, replacements: forms };
}

function options(
  messages: ReadonlyArray<ChatMessage>,
  targetTokens: number,
  log: ReductionLog,
  overrides: Partial<LightenViewOptions> = {},
): LightenViewOptions {
  return {
    from: 0,
    protectFrom: 9,
    targetTokens,
    tokensAt: (index) => counter.countMessage(messages[index]!),
    tokensOf: (message) => counter.countMessage(message),
    microCompact: { minContentLength: 100 },
    withContent: (message, content) => ({ ...message, content }),
    log,
    ...overrides,
  };
}

const total = (messages: ReadonlyArray<ChatMessage>) => counter.countMessages(messages);

/** Tokens the first output's placeholder saves. */
function placeholderSaving(messages: ReadonlyArray<ChatMessage>): number {
  const placeholder = '[tool output trimmed; ref=to_00000000000000000000000000000000]';
  return (
    counter.countMessage(messages[2]!) - counter.countMessage({ ...(messages[2] as ToolMessage), content: placeholder })
  );
}

describe('lighter forms under pressure', () => {
  it('changes nothing while the messages fit', () => {
    const messages = history(true);
    const log = new ReductionLog();
    const result = lightenView(messages, options(messages, total(messages), log));
    expect(result.messages).toBe(messages);
    expect(result.replaced).toBe(0);
    expect(log.list()).toEqual([]);
  });

  it(
    'replaces the outputs kept whole (taken back from a trim) only after every other older output, and gives them ' +
      'back first',
    () => {
      const messages = history(true);
      const oneOutput = counter.countMessage(messages[2]!);
      const keepWhole = (index: number) => index === 2 || index === 4;
      const spared = lightenView(
        messages,
        options(messages, total(messages) - oneOutput, new ReductionLog(), { keepWhole }),
      );
      expect(spared.replacements.map((replacement) => replacement.index)).toEqual([6, 8]);
      expect(spared.messages[2]).toBe(messages[2]);
      // Not enough room even so: they go too, oldest first, and the placeholders stay in index order.
      const log = new ReductionLog();
      const saving =
        oneOutput -
        counter.countMessage({
          ...(messages[2] as ToolMessage),
          content: '[tool output trimmed; ref=to_00000000000000000000000000000000]',
        });
      const squeezed = lightenView(messages, options(messages, total(messages) - 2 * saving - 1, log, { keepWhole }));
      expect(squeezed.replacements.map((replacement) => replacement.index)).toEqual([2, 6, 8]);
      expect(log.list()).toEqual([expect.objectContaining({ action: 'trimmed', from: 2, to: 9, messages: 3 })]);
    },
  );

  it(
    'keeps the outputs the previous payload replaced replaced (holdThrough), and relieves past them down to ' +
      'cutBackTokens',
    () => {
      const messages = history(true);
      const saving = placeholderSaving(messages);
      // One output's saving is needed: only the oldest goes.
      const needed = lightenView(messages, options(messages, total(messages) - saving, new ReductionLog()));
      expect(needed.replacements.map((replacement) => replacement.index)).toEqual([2]);
      // The previous payload replaced the first three outputs: they stay replaced although one would do.
      const held = lightenView(
        messages,
        options(messages, total(messages) - saving, new ReductionLog(), { holdThrough: 7 }),
      );
      expect(held.replacements.map((replacement) => replacement.index)).toEqual([2, 4, 6]);
      // More must go than the held outputs: past them, relieve down to the lower target at once.
      const cutBack = lightenView(
        messages,
        options(messages, total(messages) - 2 * saving, new ReductionLog(), {
          holdThrough: 3,
          cutBackTokens: total(messages) - 3 * saving,
        }),
      );
      expect(cutBack.replacements.map((replacement) => replacement.index)).toEqual([2, 4, 6]);
      expect(cutBack.totalTokens).toBeLessThanOrEqual(total(messages) - 3 * saving);
      // Without a lower target only what must go goes.
      const plain = lightenView(
        messages,
        options(messages, total(messages) - 2 * saving, new ReductionLog(), { holdThrough: 3 }),
      );
      expect(plain.replacements.map((replacement) => replacement.index)).toEqual([2, 4]);
    },
  );

  it(
    'never replaces the outputs of the kept head (before keptHeadEnd), neither held nor to cut back nor kept ' +
      'whole',
    () => {
      const messages = history(true);
      const saving = placeholderSaving(messages);
      // The head ends after the second output: the oldest outputs past it go instead.
      const spared = lightenView(
        messages,
        options(messages, total(messages) - saving, new ReductionLog(), { keptHeadEnd: 5 }),
      );
      expect(spared.replacements.map((replacement) => replacement.index)).toEqual([6]);
      // The previous payload's replacements reached past the head, and more must go: the head's outputs still stay
      // whole.
      const held = lightenView(
        messages,
        options(messages, total(messages) - 2 * saving, new ReductionLog(), {
          keptHeadEnd: 5,
          holdThrough: 7,
          cutBackTokens: total(messages) - 3 * saving,
        }),
      );
      expect(held.replacements.map((replacement) => replacement.index)).toEqual([6, 8]);
      expect(held.messages[2]).toBe(messages[2]);
      expect(held.messages[4]).toBe(messages[4]);
      // Outputs the user took back give way last, but not in the head either; what cannot fit is left to the window's
      // cut.
      const squeezed = lightenView(
        messages,
        options(messages, 1, new ReductionLog(), { keptHeadEnd: 5, keepWhole: (index) => index === 4 || index === 6 }),
      );
      expect(squeezed.replacements.map((replacement) => replacement.index)).toEqual([6, 8]);
      expect(squeezed.totalTokens).toBeGreaterThan(1);
    },
  );

  it('trims older outputs with a ref oldest first, only until they fit, never the current turn', () => {
    const messages = history(true);
    const log = new ReductionLog();
    const oneOutput = counter.countMessage(messages[2]!);
    const result = lightenView(messages, options(messages, total(messages) - oneOutput, log));
    expect(result.replaced).toBe(2);
    expect(result.messages[2]!.content).toBe('[tool output trimmed; ref=to_00000000000000000000000000000000]');
    expect(result.messages[4]!.content).toBe('[tool output trimmed; ref=to_11111111111111111111111111111111]');
    expect(result.messages.slice(5)).toEqual(messages.slice(5));
    expect(result.totalTokens).toBeLessThanOrEqual(total(messages) - oneOutput);
    // The two placeholders are one sparse range: two messages, each ref named.
    expect(log.list()).toEqual([
      expect.objectContaining({
        action: 'trimmed',
        from: 2,
        to: 5,
        messages: 2,
        recoverableFrom: 'tool-output-cache',
        refs: ['to_00000000000000000000000000000000', 'to_11111111111111111111111111111111'],
      }),
    ]);

    const all = lightenView(messages, options(messages, 0, new ReductionLog()));
    expect(all.replaced).toBe(4);
    expect(all.messages.slice(9)).toEqual(messages.slice(9));
  });

  it(
    'micro-compacts cached outputs instead when the refs are not to be shown, keeping their refs and naming ' + 'them',
    () => {
      const messages = history(true);
      const log = new ReductionLog();
      const result = lightenView(messages, options(messages, total(messages) - 1, log, { showRefs: false }));
      expect(result.messages[2]).toEqual({
        ...messages[2],
        content: '[Previous: used execute_bash; ref=to_00000000000000000000000000000000]',
      });
      expect(log.list()).toEqual([
        expect.objectContaining({
          action: 'micro-compacted',
          from: 2,
          recoverableFrom: 'tool-output-cache',
          refs: ['to_00000000000000000000000000000000'],
        }),
      ]);
      const noMicroCompact = lightenView(
        messages,
        options(messages, total(messages) - 1, new ReductionLog(), { showRefs: false, microCompact: undefined }),
      );
      expect(noMicroCompact.messages[2]!.content).toBe(
        '[tool output trimmed; ref=to_00000000000000000000000000000000]',
      );
    },
  );

  it('micro-compacts results without a ref when micro-compact is on, and leaves them otherwise', () => {
    const messages = history(false);
    const log = new ReductionLog();
    const result = lightenView(messages, options(messages, total(messages) - 1, log));
    expect(result.messages[2]!.content).toBe('[Previous: used execute_bash]');
    expect(log.list()).toEqual([
      expect.objectContaining({ action: 'micro-compacted', from: 2, recoverableFrom: 'history' }),
    ]);
    const off = lightenView(messages, options(messages, 0, new ReductionLog(), { microCompact: undefined }));
    expect(off.replaced).toBe(0);
  });

  it('gives the room back to the newest replaced outputs that fit again', () => {
    // Three small outputs, then a large one: oldest first all four go, then the small ones come back.
    const messages: ChatMessage[] = [{ role: 'user', content: 'Read the logs.' }];
    const sizes = [3, 3, 3, 40];
    sizes.forEach((lines, index) => {
      const [call, result] = exchange(`c${index}`, output(`log${index}`, lines));
      messages.push(call!, { ...(result as ToolMessage), output_ref: { id: `to_${String(index).repeat(32)}` } });
    });
    messages.push({ role: 'user', content: 'Fix it.' });
    const log = new ReductionLog();
    const large = counter.countMessage(messages[8]!);
    const result = lightenView(
      messages,
      options(messages, total(messages) - Math.floor(large / 2), log, { protectFrom: 9 }),
    );
    expect(result.replaced).toBe(1);
    expect(result.messages.slice(0, 8)).toEqual(messages.slice(0, 8));
    expect(result.messages[8]!.content).toBe('[tool output trimmed; ref=to_33333333333333333333333333333333]');
    expect(result.totalTokens).toBe(total(result.messages));
    expect(log.list()).toEqual([expect.objectContaining({ action: 'trimmed', from: 8, to: 9 })]);
  });

  it('fits whenever the older outputs can make room, and leaves no replacement the room could take back', () => {
    const arbitrary = fc.record({
      sizes: fc.array(fc.integer({ min: 1, max: 40 }), { minLength: 1, maxLength: 8 }),
      refs: fc.array(fc.boolean(), { minLength: 8, maxLength: 8 }),
      permille: fc.integer({ min: -100, max: 1000 }),
    });
    fc.assert(
      fc.property(arbitrary, ({ sizes, refs, permille }) => {
        const messages: ChatMessage[] = [{ role: 'user', content: 'Read the logs.' }];
        sizes.forEach((lines, index) => {
          const [call, result] = exchange(`c${index}`, output(`log${index}`, lines));
          messages.push(
            call!,
            refs[index]
              ? { ...(result as ToolMessage), output_ref: { id: `to_${String(index % 10).repeat(32)}` } }
              : result!,
          );
        });
        const protectFrom = messages.length;
        messages.push({ role: 'user', content: 'Fix it.' }, ...exchange('now', output('current', 10)));
        // Mostly between what the current turn needs and the whole view, where the choice of outputs matters.
        const needed = total(messages.slice(protectFrom));
        const target = needed + Math.floor(((total(messages) - needed) * permille) / 1000);
        const log = new ReductionLog();
        const result = lightenView(messages, options(messages, target, log, { protectFrom }));
        const after = total(result.messages);
        expect(result.totalTokens).toBe(after);
        expect(result.messages.slice(protectFrom)).toEqual(messages.slice(protectFrom));
        const replaced = result.messages
          .map((message, index) => (message !== messages[index] ? index : -1))
          .filter((index) => index !== -1);
        expect(replaced).toHaveLength(result.replaced);
        expect(log.list().reduce((sum, record) => sum + record.messages, 0)).toBe(result.replaced);
        if (after > target) {
          // Only when every older output that can shrink has been replaced.
          for (let index = 0; index < protectFrom; index++) {
            const message = messages[index]!;
            if (message.role === 'tool' && !replaced.includes(index))
              expect(
                String(message.content).length <= 100 ||
                  counter.countMessage(message) <=
                    counter.countMessage({ ...message, content: '[Previous: used execute_bash]' }),
              ).toBe(true);
          }
        }
        // None of the replacements could be undone within the target.
        for (const index of replaced) {
          expect(
            after + counter.countMessage(messages[index]!) - counter.countMessage(result.messages[index]!),
          ).toBeGreaterThan(target);
        }
      }),
      { seed: 20250101, numRuns: 120 },
    );
  });
});

describe('toolNameAt', () => {
  const result = (id: string): ChatMessage => ({ role: 'tool', tool_call_id: id, content: 'out' });

  it('pairs results with the calls of the assistant message before their run, by position for reused ids', () => {
    const messages: ChatMessage[] = [
      { role: 'user', content: 'go' },
      {
        role: 'assistant',
        content: null,
        tool_calls: [call('a', 'read_file'), call('a', 'run_command'), call('b', 'grep')],
      },
      result('a'),
      result('b'),
      result('a'),
      result('z'),
    ];
    expect([2, 3, 4, 5].map((index) => toolNameAt(messages, index))).toEqual([
      'read_file',
      'grep',
      'run_command',
      'unknown',
    ]);
  });

  it(
    'names nothing for a result without a call before its run, or whose run reaches the first position of the ' +
      'view',
    () => {
      const messages: ChatMessage[] = [
        { role: 'assistant', content: null, tool_calls: [call('a', 'read_file')] },
        result('a'),
        { role: 'user', content: 'x' },
        result('a'),
      ];
      expect(toolNameAt(messages, 1)).toBe('read_file');
      expect(toolNameAt(messages, 1, 1)).toBe('unknown');
      expect(toolNameAt(messages, 3)).toBe('unknown');
    },
  );
});
