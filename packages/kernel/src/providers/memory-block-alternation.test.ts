import { type ChatMessage, CtxkitEventBus, type LLMPayload } from '@ctxkit/core';
import { computeBudget, HeuristicTokenCounter, type MemoryBlock, PayloadComposer } from '@ctxkit/core/strategy-kit';

import { toAnthropicMessages } from './anthropic-adapter';
import { toOpenAIChatMessages } from './openai-chat-adapter';
import { toResponsesInput } from './openai-responses-adapter';
import { findProviderProblems } from './validate-for-provider';

/**
 * Memory blocks sent as user messages (a summary right after the system prompt, a state before the
 * history) next to the conversation's first user message, with dynamic context (a system message):
 * each provider's converter gives what the provider takes, roles alternating where it requires it.
 */

const SYSTEM = 'You book flights.';
const RAG = 'Fares: see the fare table.';
const counter = new HeuristicTokenCounter('test');
const history: ChatMessage[] = [
  { role: 'user', content: 'Book me a flight to Denver.' },
  {
    role: 'assistant',
    content: null,
    tool_calls: [{ id: 'c1', type: 'function', function: { name: 'search', arguments: '{"to":"DEN"}' } }],
  },
  { role: 'tool', tool_call_id: 'c1', content: 'HAT101 at 9:00' },
  { role: 'assistant', content: 'HAT101 leaves at 9:00. Shall I book it?' },
  { role: 'user', content: 'Yes.' },
];
const memory: MemoryBlock[] = [
  { name: 'summary', role: 'user', placement: 'after-system', content: 'Summary block: the user flies often.' },
  { name: 'state', role: 'user', content: 'State block: {"destination": "Denver"}' },
];

/** The roles of the converted history: user and assistant in turn. */
const ALTERNATING = ['user', 'assistant', 'user', 'assistant', 'user'];

/** The shared composer at a 4,000-token window. */
function newComposer(): PayloadComposer {
  const budget = computeBudget({ contextWindow: 4000, maxContextTokens: 4000, reserveOutputTokens: 0 });
  return new PayloadComposer({
    owner: { agentId: 'a', sessionId: 's', strategyId: 'test', events: new CtxkitEventBus() },
    model: 'test',
    counter,
    budget: () => budget,
  });
}

/**
 * A payload of the shared composer with the two user-role blocks and dynamic context; `startIndex` 1 starts the window
 * at an assistant message.
 */
function payload(startIndex = 0): LLMPayload {
  return newComposer().compose({
    systemPrompt: SYSTEM,
    history,
    tools: [],
    ragContext: RAG,
    memory,
    startIndex,
    turn: 2,
  }).payload;
}

describe('user-role memory blocks through the provider converters', () => {
  describe('anthropic', () => {
    it(
      'keeps only the system messages in `system` and merges the blocks with the first user message, roles ' +
        'alternating',
      () => {
        const converted = toAnthropicMessages(payload().messages);
        expect(converted.system).toBe(`${SYSTEM}\n\n${RAG}`);
        expect(converted.messages.map((message) => message.role)).toEqual(ALTERNATING);
        expect(converted.messages[0]!.content).toEqual([
          { type: 'text', text: memory[0]!.content },
          { type: 'text', text: memory[1]!.content },
          { type: 'text', text: 'Book me a flight to Denver.' },
        ]);
        expect(converted.insertedLeadingUserMessage).toBe(false);
        expect(findProviderProblems('anthropic', payload().messages)).toEqual([]);
      },
    );

    it('starts with the blocks when the window starts at an assistant message: no note needs to go before it', () => {
      const converted = toAnthropicMessages(payload(1).messages);
      expect(converted.messages.map((message) => message.role)).toEqual(ALTERNATING);
      expect(converted.messages[0]!.content).toEqual([
        { type: 'text', text: memory[0]!.content },
        { type: 'text', text: memory[1]!.content },
      ]);
      expect(converted.insertedLeadingUserMessage).toBe(false);
      expect(findProviderProblems('anthropic', payload(1).messages)).toEqual([]);
    });
  });

  describe('a block placed before the newest user message', () => {
    it('goes between the last answer and the question, and every provider takes the payload', () => {
      const recalled: MemoryBlock = {
        name: 'recall',
        role: 'user',
        placement: 'before-newest-user',
        content: 'Recalled: the user asked for aisle seats.',
      };
      const { messages } = newComposer().compose({
        systemPrompt: SYSTEM,
        history,
        tools: [],
        memory: [recalled],
        turn: 2,
      }).payload;
      expect(messages.map((message) => message.content)).toEqual([
        SYSTEM,
        ...history.slice(0, 4).map((message) => message.content),
        recalled.content,
        'Yes.',
      ]);
      for (const provider of ['anthropic', 'openai-chat', 'openai-responses'] as const)
        expect(findProviderProblems(provider, messages)).toEqual([]);
      const converted = toAnthropicMessages(messages);
      expect(converted.messages.map((message) => message.role)).toEqual(ALTERNATING);
      expect(converted.messages[4]!.content).toEqual([
        { type: 'text', text: recalled.content },
        { type: 'text', text: 'Yes.' },
      ]);
    });
  });

  describe('openai-chat', () => {
    it('sends the system messages first, then the blocks as user messages before the first user message', () => {
      for (const startIndex of [0, 1]) {
        const messages = toOpenAIChatMessages(payload(startIndex).messages);
        expect(messages.slice(0, 4).map((message) => [message.role, message.content])).toEqual([
          ['system', SYSTEM],
          ['system', RAG],
          ['user', memory[0]!.content],
          ['user', memory[1]!.content],
        ]);
        expect(messages[4]!.role).toBe(startIndex === 0 ? 'user' : 'assistant');
        expect(findProviderProblems('openai-chat', payload(startIndex).messages)).toEqual([]);
      }
    });
  });

  describe('openai-responses', () => {
    it('sends the system items first, then the blocks as user message items before the conversation', () => {
      for (const startIndex of [0, 1]) {
        const items = toResponsesInput(payload(startIndex).messages);
        expect(items.slice(0, 4)).toEqual([
          { type: 'message', role: 'system', content: SYSTEM },
          { type: 'message', role: 'system', content: RAG },
          { type: 'message', role: 'user', content: memory[0]!.content },
          { type: 'message', role: 'user', content: memory[1]!.content },
        ]);
        expect(items[4]).toMatchObject(
          startIndex === 0 ? { type: 'message', role: 'user' } : { type: 'function_call', call_id: 'c1' },
        );
        expect(findProviderProblems('openai-responses', payload(startIndex).messages)).toEqual([]);
      }
    });
  });
});
