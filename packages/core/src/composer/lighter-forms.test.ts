import fc from 'fast-check';

import { testComposer } from '../__fixtures__/test-composer';
import { computeBudget } from '../budget/compute-budget';
import type { ChatMessage, ToolMessage } from '../contracts/chat-message';
import type { ToolDefinition } from '../contracts/tool-definition';
import { CtxkitEventBus } from '../events/event-bus';
import { createTokenCounter } from '../token-counting/create-token-counter';
import type { LighterForm, LighterForms } from './lighter-forms';
import { type ComposeRequest, PayloadComposer } from './payload-composer';

const counter = createTokenCounter({ model: 'gpt-4o' });

function composer(maxContextTokens: number): PayloadComposer {
  return testComposer(maxContextTokens, counter);
}

/** A task, `reads` tool exchanges of about `words` words each, then the current turn's question. */
function readsHistory(reads: number, words = 200): ChatMessage[] {
  const history: ChatMessage[] = [{ role: 'user', content: 'Read the build logs and find the failure.' }];
  for (let n = 0; n < reads; n++) {
    history.push({
      role: 'assistant',
      content: '',
      tool_calls: [{ id: `c${n}`, type: 'function', function: { name: 'read_log', arguments: `{"part":${n}}` } }],
    });
    history.push({
      role: 'tool',
      tool_call_id: `c${n}`,
      content: `part ${n}: ${'compiler warning line '.repeat(words / 3)}`,
    });
  }
  history.push({ role: 'user', content: 'Which part failed?' });
  return history;
}

const placeholders = new Map<ChatMessage, ToolMessage>();

/** Every tool result's placeholder (the same object from call to call, as a strategy keeps its copies). */
function placeholderOf(message: ToolMessage): ToolMessage {
  let copy = placeholders.get(message);
  if (!copy) {
    copy = { ...message, content: `[output of ${message.tool_call_id} set aside; ref=${message.tool_call_id}]` };
    placeholders.set(message, copy);
  }
  return copy;
}

function lighter(history: ReadonlyArray<ChatMessage>, overrides: Partial<LighterForms> = {}): LighterForms {
  const formAt = (messages: ReadonlyArray<ChatMessage>, index: number): LighterForm | undefined => {
    const message = messages[index]!;
    if (message.role !== 'tool') return undefined;
    const form = placeholderOf(message);
    const before = counter.countMessage(message);
    const after = counter.countMessage(form);
    return after < before ? { index, message: form, before, after } : undefined;
  };
  return {
    from: 0,
    protectFrom: history.length - 1,
    all: false,
    formAt,
    everyForm: (messages) => {
      const forms: LighterForm[] = [];
      for (let index = 0; index < messages.length - 1; index++) {
        const form = formAt(messages, index);
        if (form) forms.push(form);
      }
      return forms;
    },
    ...overrides,
  };
}

function request(history: ReadonlyArray<ChatMessage>, fields: Partial<ComposeRequest> = {}): ComposeRequest {
  return { systemPrompt: 'You read logs.', history, tools: [], turn: 1, lighter: lighter(history), ...fields };
}

const expandTool: ToolDefinition = {
  type: 'function',
  function: {
    name: 'expand',
    description: 'Reads a set-aside output back by its ref.',
    parameters: { type: 'object' },
  },
};

describe('lighter forms in the layout', () => {
  it('uses none while the history fits, and reports no pressure', () => {
    const history = readsHistory(3, 30);
    const composed = composer(8000).layout(request(history));
    expect(composed.lightened).toMatchObject({ forms: [], pressure: false, toolsOffered: false });
    expect(composed.payload.messages.slice(1)).toEqual(history);
  });

  it('uses the oldest forms first and only as many as the history needs to fit whole', () => {
    const history = readsHistory(8);
    const budget = 1500;
    const composed = composer(budget).layout(request(history));
    const forms = composed.lightened!.forms;
    expect(composed.lightened!.pressure).toBe(true);
    expect(forms.length).toBeGreaterThan(0);
    // The oldest outputs, in order, and nothing is dropped: the window keeps the whole history.
    expect(forms.map((form) => form.index)).toEqual(forms.map((_, n) => 2 + 2 * n));
    expect(composed.window.fromIndex).toBe(0);
    expect(composed.payload.stats.output_tokens).toBeLessThanOrEqual(budget);
    // One form fewer would not fit: the newest form used was needed.
    const newest = forms[forms.length - 1]!;
    const withoutNewest = composed.payload.stats.sections.history + newest.before - newest.after;
    expect(withoutNewest).toBeGreaterThan(composed.roomTokens);
  });

  it('reports each form used through keptReductions, and never mutates the history', () => {
    const history = readsHistory(8);
    const snapshot = JSON.stringify(history);
    let reported: ReadonlyArray<LighterForm> = [];
    const composed = composer(1500).layout(
      request(history, {
        keptReductions: (_kept, lightened) => {
          reported = lightened;
          return [];
        },
      }),
    );
    expect(reported).toBe(composed.lightened!.forms);
    expect(JSON.stringify(history)).toBe(snapshot);
  });

  it('with `all`, uses every form and leaves out by whole groups what still does not fit', () => {
    const history = readsHistory(80);
    const composed = composer(1500).layout(request(history, { lighter: lighter(history, { all: true }) }));
    expect(composed.lightened!.forms).toHaveLength(80);
    expect(composed.window.fromIndex).toBeGreaterThan(0);
    expect(composed.payload.stats.output_tokens).toBeLessThanOrEqual(1500);
  });

  it('offers the expand tools once a form hides an output, when they take at most their share of the room', () => {
    const history = readsHistory(8);
    const hides = (message: ChatMessage) => message.role === 'tool' && String(message.content).includes('ref=');
    const expandTools = {
      offering: [expandTool],
      tokens: counter.countTools([expandTool]),
      maxRoomShare: 0.25,
      fromStart: false,
      hides,
    };
    const offered = composer(1500).layout(request(history, { lighter: lighter(history, { expandTools }) }));
    expect(offered.lightened!.toolsOffered).toBe(true);
    expect(offered.payload.tools).toEqual([expandTool]);
    expect(offered.payload.stats.output_tokens).toBeLessThanOrEqual(1500);
    // A room where they would take more than their share: not offered, and the forms still make the history fit.
    const tooDear = composer(1500).layout(
      request(history, { lighter: lighter(history, { expandTools: { ...expandTools, maxRoomShare: 0.001 } }) }),
    );
    expect(tooDear.lightened!.toolsOffered).toBe(false);
    expect(tooDear.payload.tools).toEqual([]);
    // Nothing hidden, the history fits: not offered either.
    const small = readsHistory(2, 20);
    const calm = composer(8000).layout(request(small, { lighter: lighter(small, { expandTools }) }));
    expect(calm.lightened!.toolsOffered).toBe(false);
  });

  it('holds the forms the sent payload used while a cut back holds', () => {
    const history = readsHistory(10);
    const subject = composer(1800);
    const first = subject.compose(request(history, { cutBackRatio: 0.8 }));
    const used = first.lightened!.forms.map((form) => form.index);
    expect(used.length).toBeGreaterThan(0);
    // The next turn only appends: the forms used before are used again, none given back.
    const grown = [...history, { role: 'assistant', content: 'Part 3.' } as ChatMessage];
    const next = subject.layout(request(grown, { cutBackRatio: 0.8, lighter: lighter(grown, { protectFrom: 21 }) }));
    expect(next.lightened!.forms.map((form) => form.index).slice(0, used.length)).toEqual(used);
  });

  it('refuses a form that would break a tool-call pair, naming the position', () => {
    const history = readsHistory(8);
    const wrongId = lighter(history, {
      formAt: (messages, index) => {
        const message = messages[index]!;
        if (message.role !== 'tool') return undefined;
        return { index, message: { ...message, tool_call_id: 'other', content: '[gone]' }, before: 100, after: 5 };
      },
    });
    expect(() => composer(1500).layout(request(history, { lighter: wrongId }))).toThrow(
      /history\[2\] .*must keep its message's role and call ids/,
    );
  });

  it('never exceeds the budget, for any number and size of outputs and any budget', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 30 }),
        fc.integer({ min: 30, max: 400 }),
        fc.integer({ min: 600, max: 6000 }),
        (reads, words, budget) => {
          const history = readsHistory(reads, words);
          const composed = composer(budget).layout(request(history));
          expect(composed.payload.stats.output_tokens).toBeLessThanOrEqual(budget);
          // A form is used only under pressure.
          if (!composed.lightened!.pressure) expect(composed.lightened!.forms).toEqual([]);
        },
      ),
      { numRuns: 60 },
    );
  });
});
