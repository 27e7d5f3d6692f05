import { type AssistantMessage, type ChatMessage, ProviderPayloadError, type ToolDefinition } from '@ctxkit/core';

import { ThinkingPrefixBinding } from './thinking-prefix-binding';
import { findProviderProblems, THINKING_PREFIX_RULE, validateForProvider } from './validate-for-provider';

const tools: ToolDefinition[] = [
  { type: 'function', function: { name: 'lookup', parameters: { type: 'object', properties: {} } } },
];
const system: ChatMessage = { role: 'system', content: 'You book flights.' };
const user = (text: string): ChatMessage => ({ role: 'user', content: text });
const thinkingCall = (id: string, redacted = false): AssistantMessage => ({
  role: 'assistant',
  content: null,
  tool_calls: [{ id, type: 'function', function: { name: 'lookup', arguments: '{}' } }],
  reasoning: [
    {
      provider: 'anthropic',
      data: redacted
        ? { type: 'redacted_thinking', data: `opaque-${id}` }
        : { type: 'thinking', thinking: `Look up ${id}.`, signature: `sig-${id}` },
    },
  ],
});
const result = (id: string): ChatMessage => ({ role: 'tool', tool_call_id: id, content: `result ${id}` });
const answer = (text: string): AssistantMessage => ({
  role: 'assistant',
  content: text,
  reasoning: [{ provider: 'anthropic', data: { type: 'thinking', thinking: 'Answer.', signature: `sig-${text}` } }],
});

/** A conversation of two tool loops and an answer, each assistant message with signed thinking. */
const first = user('Book me a flight.');
const a1 = thinkingCall('c1');
const r1 = result('c1');
const a2 = thinkingCall('c2', true);
const r2 = result('c2');
const final = answer('Booked.');
const second = user('And a hotel?');

/** Sends the requests of the agent loop in order through one binding, returning the last review. */
function sendAll(binding: ThinkingPrefixBinding, requests: ChatMessage[][], requestTools = tools) {
  let last = binding.review(requests[0]!, requestTools);
  for (const request of requests) {
    last = binding.review(request, requestTools);
    binding.commit(last.messages, requestTools);
  }
  return last;
}

describe('ThinkingPrefixBinding', () => {
  describe('#review', () => {
    it('keeps every block while each request repeats the previous one and appends', () => {
      const binding = new ThinkingPrefixBinding();
      const last = sendAll(binding, [
        [system, first],
        [system, first, a1, r1],
        [system, first, a1, r1, a2, r2],
        [system, first, a1, r1, a2, r2, final, second],
      ]);
      expect(last.invalidated).toEqual([]);
      expect(last.messages).toEqual([system, first, a1, r1, a2, r2, final, second]);
      expect(last.messages[2]).toBe(a1);
    });

    it('leaves out every block after a dropped message and says the messages changed', () => {
      const binding = new ThinkingPrefixBinding();
      sendAll(binding, [
        [system, first],
        [system, first, a1, r1],
        [system, first, a1, r1, a2, r2],
      ]);
      const reviewed = binding.review([system, user('(earlier turns dropped)'), a2, r2, final, second], tools);
      expect(reviewed.invalidated).toEqual([
        { messageIndex: 2, blocks: 1, changed: 'messages' },
        { messageIndex: 4, blocks: 1, changed: 'messages' },
      ]);
      const sent = reviewed.messages[2] as AssistantMessage;
      expect(sent.reasoning).toBeUndefined();
      expect(sent.tool_calls).toEqual(a2.tool_calls);
      expect(a2.reasoning).toHaveLength(1);
    });

    it('names a changed system prompt or tool list as the cause', () => {
      const binding = new ThinkingPrefixBinding();
      sendAll(binding, [
        [system, first],
        [system, first, a1, r1],
      ]);
      expect(
        binding.review([{ role: 'system', content: 'You book trains.' }, first, a1, r1], tools).invalidated,
      ).toEqual([{ messageIndex: 2, blocks: 1, changed: 'system' }]);
      expect(binding.review([system, first, a1, r1], []).invalidated).toEqual([
        { messageIndex: 2, blocks: 1, changed: 'tools' },
      ]);
    });

    it('leaves out a fresh answer block when the payload no longer repeats the request it answered', () => {
      const binding = new ThinkingPrefixBinding();
      sendAll(binding, [[system, first]]);
      const pinned: ChatMessage = { role: 'user', content: '<pinned>seat 12A</pinned>' };
      expect(binding.review([system, pinned, first, a1, r1], tools).invalidated).toEqual([
        { messageIndex: 3, blocks: 1, changed: 'messages' },
      ]);
      expect(binding.review([system, first, a1, r1], tools).invalidated).toEqual([]);
    });

    it('keeps blocks after one that was left out before, when the later ones were written after it', () => {
      const binding = new ThinkingPrefixBinding();
      sendAll(binding, [
        [system, first],
        [system, first, a1, r1],
      ]);
      // The system prompt changes: a1 loses its block; a2 is written after that request.
      const changed: ChatMessage = { role: 'system', content: 'You book flights and trains.' };
      const third = sendAll(binding, [[changed, first, a1, r1]]);
      expect(third.invalidated).toHaveLength(1);
      const next = binding.review([changed, first, a1, r1, a2, r2], tools);
      expect(next.invalidated).toEqual([{ messageIndex: 2, blocks: 1, changed: 'system' }]);
      expect(next.messages[4]).toBe(a2);
    });

    it('returns the same copy for a message that loses its blocks on every call, and accepts its own output', () => {
      const binding = new ThinkingPrefixBinding();
      sendAll(binding, [
        [system, first],
        [system, first, a1, r1],
      ]);
      const payload = [system, user('other start'), a1, r1];
      const once = binding.review(payload, tools);
      const twice = binding.review(payload, tools);
      expect(twice.messages[2]).toBe(once.messages[2]);
      expect(binding.review(once.messages, tools).invalidated).toEqual([]);
    });

    it('judges an answer left out of the next payload and brought back later by the request it answered', () => {
      const binding = new ThinkingPrefixBinding();
      sendAll(binding, [[system, first]]);
      binding.recordAnswer(a1);
      // The next request leaves the answer out (its prefix changed); the one after brings it back.
      const other = user('Book me a flight (edited).');
      sendAll(binding, [[system, other]]);
      expect(binding.review([system, other, a1, r1], tools).invalidated).toEqual([
        { messageIndex: 2, blocks: 1, changed: 'messages' },
      ]);
    });

    it('takes unseen blocks as valid in a new binding (no request was sent for the conversation yet)', () => {
      expect(new ThinkingPrefixBinding().review([system, first, a1, r1], tools).invalidated).toEqual([]);
    });
  });

  describe('with the validity check', () => {
    const setUp = () => {
      const binding = new ThinkingPrefixBinding();
      sendAll(binding, [
        [system, first],
        [system, first, a1, r1],
        [system, first, a1, r1, a2, r2],
      ]);
      return binding;
    };

    it('refuses a payload that still carries a block whose prefix changed, with a fix that says what to do', () => {
      const binding = setUp();
      const payload = [system, user('(earlier turns dropped)'), a2, r2];
      expect(
        findProviderProblems('anthropic', payload, { thinkingBinding: binding, tools }).map((problem) => problem.rule),
      ).toEqual([THINKING_PREFIX_RULE]);
      let error: unknown;
      try {
        validateForProvider('anthropic', payload, { thinkingBinding: binding, tools });
      } catch (caught) {
        error = caught;
      }
      expect(error).toBeInstanceOf(ProviderPayloadError);
      expect((error as ProviderPayloadError).fix).toContain('drop_block');
      expect((error as ProviderPayloadError).fix).toContain('ThinkingPrefixBinding.review');
    });

    it('accepts the reviewed payload, although the tool loop it ends in lost its thinking', () => {
      const binding = setUp();
      const reviewed = binding.review([system, user('(earlier turns dropped)'), a2, r2], tools);
      expect(findProviderProblems('anthropic', reviewed.messages, { thinkingBinding: binding, tools })).toEqual([]);
      // A loop that never had its thinking is still refused.
      const bare: ChatMessage = { role: 'assistant', content: null, tool_calls: a2.tool_calls! };
      expect(
        findProviderProblems('anthropic', [system, first, a1, r1, bare, r2]).map((problem) => problem.rule),
      ).toContain('anthropic-thinking-missing');
    });
  });
});
