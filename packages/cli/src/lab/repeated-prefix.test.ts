import { type ChatMessage, createTokenCounter, type ToolDefinition } from '@ctxkit/core';

import { repeatedPrefixTokens } from './repeated-prefix';

const counter = createTokenCounter({ model: 'gpt-4o' });
const system: ChatMessage = { role: 'system', content: 'You are a booking agent.' };
const a: ChatMessage = { role: 'user', content: 'Book HAT039 for Mia Li.' };
const b: ChatMessage = { role: 'assistant', content: 'Booked: reservation 4WQ150.' };
const c: ChatMessage = { role: 'user', content: 'Add a bag.' };
const tool: ToolDefinition = {
  type: 'function',
  function: { name: 'book', description: 'Books a flight', parameters: { type: 'object' } },
};

describe('repeatedPrefixTokens', () => {
  it('is 0 for the first payload', () => {
    expect(repeatedPrefixTokens(undefined, { messages: [system, a], tools: [] }, counter)).toBe(0);
  });

  it('counts the tools and every leading message equal to the previous payload, copies included', () => {
    const previous = { messages: [system, a, b], tools: [tool] };
    const current = {
      messages: JSON.parse(JSON.stringify([system, a, b])).concat([c]) as ChatMessage[],
      tools: [tool],
    };
    expect(repeatedPrefixTokens(previous, current, counter)).toBe(
      counter.countTools([tool]) + counter.countMessages([system, a, b]),
    );
  });

  it('stops at the first message that differs: dropping the oldest turn leaves only the system prompt cached', () => {
    const previous = { messages: [system, a, b, c], tools: [] };
    expect(repeatedPrefixTokens(previous, { messages: [system, b, c], tools: [] }, counter)).toBe(
      counter.countMessage(system),
    );
    expect(
      repeatedPrefixTokens(
        previous,
        { messages: [system, { ...a, content: 'Book HAT040 for Mia Li.' }, b, c], tools: [] },
        counter,
      ),
    ).toBe(counter.countMessage(system));
  });

  it('is 0 when the tool definitions changed (they come first)', () => {
    const other: ToolDefinition = { type: 'function', function: { name: 'cancel', parameters: { type: 'object' } } };
    expect(
      repeatedPrefixTokens(
        { messages: [system, a], tools: [tool] },
        { messages: [system, a, b], tools: [tool, other] },
        counter,
      ),
    ).toBe(0);
  });
});
