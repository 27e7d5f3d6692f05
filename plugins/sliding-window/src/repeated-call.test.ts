import type { ChatMessage, LLMPayload } from '@ctxkit/core';
import { RepeatedCall, type ComposeCall } from './repeated-call';

const payload = (text: string): LLMPayload => ({ messages: [{ role: 'user', content: text }], tools: [], stats: { text } as unknown as LLMPayload['stats'] });

describe('RepeatedCall', () => {
  const history: ChatMessage[] = [{ role: 'user', content: 'hi' }];
  const tools: [] = [];
  const call: ComposeCall = { history, systemPrompt: 'sys', tools, ragContext: undefined, collapse: false };

  it('answers a repeat of the previous call with a copy of its payload', () => {
    const repeated = new RepeatedCall();
    expect(repeated.payloadFor(call)).toBeUndefined();
    const composed = payload('one');
    repeated.remember(call, composed);
    const again = repeated.payloadFor({ ...call })!;
    expect(again).toEqual(composed);
    expect(again.messages).not.toBe(composed.messages);
    again.messages.push({ role: 'user', content: 'changed by the caller' });
    expect(repeated.payloadFor(call)!.messages).toHaveLength(1);
  });

  it('composes again when anything of the call changed: the history grown or replaced, the prompt, tools, dynamic context or collapse option', () => {
    const repeated = new RepeatedCall();
    repeated.remember(call, payload('one'));
    history.push({ role: 'assistant', content: 'grown in place' });
    expect(repeated.payloadFor(call)).toBeUndefined();
    history.pop();
    expect(repeated.payloadFor(call)).toBeDefined();
    expect(repeated.payloadFor({ ...call, history: [...history] })).toBeUndefined();
    expect(repeated.payloadFor({ ...call, systemPrompt: 'other' })).toBeUndefined();
    expect(repeated.payloadFor({ ...call, tools: [] })).toBeUndefined();
    expect(repeated.payloadFor({ ...call, ragContext: 'rag' })).toBeUndefined();
    expect(repeated.payloadFor({ ...call, collapse: true })).toBeUndefined();
    repeated.clear();
    expect(repeated.payloadFor(call)).toBeUndefined();
  });
});
