import type { ChatMessage } from '@ctxkit/core';

import type { TranscriptRecord } from '../lab/transcript-record';
import { argumentFacts } from './argument-facts';
import { neededFacts } from './needed-facts';

function call(id: string, name: string, args: unknown): ChatMessage {
  return {
    role: 'assistant',
    content: null,
    tool_calls: [{ id, type: 'function', function: { name, arguments: JSON.stringify(args) } }],
  };
}

const messages: ChatMessage[] = [
  { role: 'system', content: 'You are a shop assistant. Refunds go to the original card; the returns desk is RD-01.' },
  { role: 'user', content: 'My order A-1042 arrived broken. I am Jane Doe.' },
  call('c1', 'get_order', { order_id: 'A-1042' }),
  { role: 'tool', tool_call_id: 'c1', content: '{"items":[{"sku":"SKU-77-BLUE","qty":1}],"card":"visa_4242"}' },
  { role: 'assistant', content: 'I will open a return with reference RET-9 for you.' },
  { role: 'user', content: 'Yes please, refund it.' },
  call('c2', 'open_return', {
    order_id: 'A-1042', // said by the user (and since repeated in get_order's arguments)
    items: [{ sku: 'SKU-77-BLUE', qty: 1 }], // said by get_order's output; the number is not a string
    customer: 'Jane Doe', // said by the user
    desk: 'RD-01', // said first by the system prompt: not learnt in the conversation
    reference: 'RET-9', // said first by the agent itself
    refund_to: 'visa_4242', // said by the tool output
    kind: 'refund', // a plain lowercase word: a choice from the schema
    note: 'ok', // too short
  }),
];

describe('argumentFacts', () => {
  it('takes each string argument the user or a tool output said first, before the call that uses it', () => {
    expect(argumentFacts({ id: 'chat', messages })).toEqual([
      { question: 'get_order: value of order_id?', answer: 'A-1042', neededAt: 2, match: 'verbatim', evidence: [1] },
      { question: 'open_return: value of order_id?', answer: 'A-1042', neededAt: 6, match: 'verbatim', evidence: [1] },
      {
        question: 'open_return: value of items[0].sku?',
        answer: 'SKU-77-BLUE',
        neededAt: 6,
        match: 'verbatim',
        evidence: [3],
      },
      {
        question: 'open_return: value of customer?',
        answer: 'Jane Doe',
        neededAt: 6,
        match: 'verbatim',
        evidence: [1],
      },
      {
        question: 'open_return: value of refund_to?',
        answer: 'visa_4242',
        neededAt: 6,
        match: 'verbatim',
        evidence: [3],
      },
    ]);
  });

  it('finds nothing in a conversation without tool calls, or whose arguments were never said before', () => {
    expect(argumentFacts({ id: 'chat', messages: messages.slice(0, 2) })).toEqual([]);
    expect(
      argumentFacts({
        id: 'chat',
        messages: [messages[0]!, { role: 'user', content: 'Hi' }, call('c1', 'get_order', { order_id: 'B-7' })],
      }),
    ).toEqual([]);
  });

  it('is what neededFacts checks on a record without "facts"; "facts": [] says there are none', () => {
    const record: TranscriptRecord = { id: 'my-chat:1', messages };
    expect(neededFacts(record, messages.length)).toEqual(argumentFacts(record));
    expect(neededFacts({ ...record, facts: [] }, messages.length)).toEqual([]);
  });
});
