import { type ChatMessage, ProviderPayloadError } from '@ctxkit/core';
import { freezeDeep } from '@ctxkit/core/testing';
import fc from 'fast-check';

import { arbPayloadStep, arbUnitKind, conversationOf, payloadsOf } from '../__fixtures__/payload-sequences';
import { IncrementalProviderCheck } from './incremental-provider-check';
import { PROVIDER_NAMES, type ProviderName } from './provider-name';
import { validateForProvider } from './validate-for-provider';

const call = (id: string) => ({ id, type: 'function' as const, function: { name: 'lookup', arguments: '{}' } });

/** The problems a check reports, or [] when it accepts the payload. */
function problemsOf(check: () => void): string[] {
  try {
    check();
    return [];
  } catch (error) {
    if (!(error instanceof ProviderPayloadError)) throw error;
    return error.details.problems as string[];
  }
}

/** A valid conversation of `turns` user questions, each answered after one tool call. */
function conversation(turns: number): ChatMessage[] {
  const messages: ChatMessage[] = [{ role: 'system', content: 'You help.' }];
  for (let turn = 0; turn < turns; turn++) {
    messages.push(
      { role: 'user', content: `question ${turn}` },
      { role: 'assistant', content: null, tool_calls: [call(`c${turn}`)] },
      { role: 'tool', tool_call_id: `c${turn}`, content: `result ${turn}` },
      { role: 'assistant', content: `answer ${turn}` },
    );
  }
  return freezeDeep(messages);
}

/** Messages whose property reads are counted, per message. */
function watched(messages: readonly ChatMessage[]): { messages: ChatMessage[]; reads: Map<ChatMessage, number> } {
  const reads = new Map<ChatMessage, number>();
  const proxies = messages.map((message) => {
    const proxy: ChatMessage = new Proxy(message, {
      get(target, key, receiver) {
        reads.set(proxy, (reads.get(proxy) ?? 0) + 1);
        return Reflect.get(target, key, receiver) as unknown;
      },
    });
    return proxy;
  });
  return { messages: proxies, reads };
}

describe('IncrementalProviderCheck', () => {
  describe('#check', () => {
    it('reads only what a payload adds to the previous one and the exchange it continues, for every provider', () => {
      for (const provider of PROVIDER_NAMES) {
        const { messages, reads } = watched(conversation(50));
        const check = new IncrementalProviderCheck(provider);
        check.check(messages);
        reads.clear();
        const next = [...messages, freezeDeep<ChatMessage>({ role: 'user', content: 'one more' })];
        check.check(next);
        // The system prompt and the first message (where the shared run starts), the last exchange (where the new part
        // joins).
        expect(messages.filter((message) => reads.has(message)).length).toBeLessThanOrEqual(5);
        expect(messages.slice(2, -4).some((message) => reads.has(message))).toBe(false);
        // A payload that ends inside a tool loop, then one with the answer.
        const inLoop = [
          ...next,
          freezeDeep<ChatMessage>({ role: 'assistant', content: null, tool_calls: [call('more')] }),
          freezeDeep<ChatMessage>({ role: 'tool', tool_call_id: 'more', content: 'r' }),
        ];
        check.check(inLoop);
        reads.clear();
        check.check([...inLoop, freezeDeep<ChatMessage>({ role: 'assistant', content: 'done' })]);
        expect(messages.slice(2).some((message) => reads.has(message))).toBe(false);
        // The full check reads every one of them.
        reads.clear();
        validateForProvider(provider, next);
        expect(messages.every((message) => reads.has(message))).toBe(true);
      }
    });

    it('catches a bad message appended late to a long valid conversation, for every provider', () => {
      const messages = conversation(40);
      for (const provider of PROVIDER_NAMES) {
        const check = new IncrementalProviderCheck(provider);
        check.check(messages);
        const dangling = [
          ...messages,
          freezeDeep<ChatMessage>({ role: 'user', content: 'go on' }),
          freezeDeep<ChatMessage>({ role: 'assistant', content: null, tool_calls: [call('late')] }),
        ];
        expect(problemsOf(() => check.check(dangling))).toEqual(
          problemsOf(() => validateForProvider(provider, dangling)),
        );
        expect(problemsOf(() => check.check(dangling)).join('\n')).toMatch(
          /missing-tool-result|anthropic-tool-use-without-result/,
        );
        const orphan = [...messages, freezeDeep<ChatMessage>({ role: 'tool', tool_call_id: 'nobody', content: 'r' })];
        expect(() => check.check(orphan)).toThrow(ProviderPayloadError);
      }
    });

    it('catches a message replaced by another inside the part the payloads share', () => {
      const messages = conversation(40);
      for (const provider of PROVIDER_NAMES) {
        const check = new IncrementalProviderCheck(provider);
        check.check(messages);
        // The call of turn 10 now has another id: its result answers nothing.
        const changed = messages.slice();
        changed[1 + 10 * 4 + 1] = freezeDeep<ChatMessage>({
          role: 'assistant',
          content: null,
          tool_calls: [call('renamed')],
        });
        const problems = problemsOf(() => check.check(changed));
        expect(problems).toEqual(problemsOf(() => validateForProvider(provider, changed)));
        expect(problems.some((problem) => problem.startsWith('orphan-tool-result'))).toBe(true);
      }
    });

    it('finds, for Anthropic, a tool loop without its thinking block when only older messages think', () => {
      const thinking = { provider: 'anthropic', data: { type: 'thinking', thinking: 'Look it up.', signature: 'sig' } };
      const reasoning = { provider: 'openai', data: { type: 'reasoning', id: 'rs_1', summary: [] } };
      const start = freezeDeep<ChatMessage[]>([
        { role: 'system', content: 'You help.' },
        { role: 'user', content: 'question' },
        { role: 'assistant', content: null, tool_calls: [call('c1')], reasoning: [thinking] },
        { role: 'tool', tool_call_id: 'c1', content: 'r' },
        { role: 'assistant', content: 'Checking again.' },
      ]);
      // The new tool call merges with the answer before it: the loop's assistant message starts with text.
      const merged = [
        ...start,
        ...freezeDeep<ChatMessage[]>([
          { role: 'assistant', content: null, tool_calls: [call('c2')], reasoning: [reasoning] },
          { role: 'tool', tool_call_id: 'c2', content: 'r' },
        ]),
      ];
      // An assistant message that becomes no block: the results before it and the question after it merge.
      const longer = [
        ...merged,
        ...freezeDeep<ChatMessage[]>([
          { role: 'assistant', content: null, reasoning: [reasoning] },
          { role: 'user', content: 'and?' },
          { role: 'assistant', content: 'Done.' },
        ]),
      ];
      for (const [previous, next] of [
        [start, merged],
        [longer, longer.slice(0, -1)],
      ] as const) {
        const check = new IncrementalProviderCheck('anthropic');
        check.check(previous);
        const problems = problemsOf(() => check.check(next));
        expect(problems).toEqual(problemsOf(() => validateForProvider('anthropic', next)));
        expect(problems.some((problem) => problem.startsWith('anthropic-thinking-missing'))).toBe(true);
      }
    });

    it('checks in full a payload that does not continue the previous one', () => {
      const messages = conversation(40);
      for (const provider of PROVIDER_NAMES) {
        const check = new IncrementalProviderCheck(provider);
        check.check(messages);
        // A window that opens on a tool result whose call was left out.
        const cut = [messages[0]!, ...messages.slice(1 + 5 * 4 + 2)];
        expect(problemsOf(() => check.check(cut)).some((problem) => problem.startsWith('leading-tool-message'))).toBe(
          true,
        );
        // Another conversation altogether, with an assistant message that says nothing.
        const other = freezeDeep<ChatMessage[]>([
          { role: 'user', content: 'hi' },
          { role: 'assistant', content: null },
        ]);
        expect(problemsOf(() => check.check(other))).toEqual(problemsOf(() => validateForProvider(provider, other)));
        if (provider === 'openai-chat')
          expect(problemsOf(() => check.check(other))).toEqual([
            'empty-assistant at 1: assistant message with neither content nor tool_calls',
          ]);
      }
    });

    it('accepts a window whose oldest messages were left out, and one whose system prompt changed', () => {
      const messages = conversation(40);
      const check = new IncrementalProviderCheck('openai-chat');
      check.check(messages);
      expect(() => check.check([messages[0]!, ...messages.slice(1 + 8 * 4)])).not.toThrow();
      expect(() =>
        check.check([freezeDeep<ChatMessage>({ role: 'system', content: 'Be brief.' }), ...messages.slice(1 + 8 * 4)]),
      ).not.toThrow();
    });

    it('compares with what was sent when a strategy reuses and changes its payload array', () => {
      const messages = conversation(10);
      const payload = messages.slice();
      const check = new IncrementalProviderCheck('openai-chat');
      check.check(payload);
      payload.splice(
        1 + 3 * 4 + 1,
        1,
        freezeDeep<ChatMessage>({ role: 'assistant', content: null, tool_calls: [call('renamed')] }),
      );
      expect(() => check.check(payload)).toThrow(ProviderPayloadError);
    });

    it('agrees with validateForProvider on every payload of any sequence, for every provider', () => {
      fc.assert(
        fc.property(
          fc.constantFrom<ProviderName>(...PROVIDER_NAMES),
          fc.array(arbUnitKind, { minLength: 4, maxLength: 30 }),
          fc.array(arbPayloadStep, { minLength: 1, maxLength: 25 }),
          (provider, kinds, steps) => {
            const check = new IncrementalProviderCheck(provider);
            for (const payload of payloadsOf(conversationOf(kinds), steps)) {
              expect(problemsOf(() => check.check(payload))).toEqual(
                problemsOf(() => validateForProvider(provider, payload)),
              );
            }
          },
        ),
        { numRuns: 1000 },
      );
    });
  });
});
