import type { ChatMessage } from '../contracts/chat-message';
import { explainSession } from './explain-session';
import type { SessionTrace } from './session-trace';
import type { SessionTraceEntry } from './session-trace-entry';

const history: ChatMessage[] = [
  { role: 'user', content: 'Cancel reservation S61CZX.' },
  {
    role: 'assistant',
    content: null,
    tool_calls: [
      {
        id: 'call_1',
        type: 'function',
        function: { name: 'get_reservation', arguments: '{"reservation_id":"S61CZX"}' },
      },
    ],
  },
  { role: 'tool', tool_call_id: 'call_1', content: '{"reservation_id":"S61CZX","status":"active"}' },
  { role: 'tool', tool_call_id: 'call_2', content: '{"other":"ABC123"}' },
  { role: 'assistant', content: 'Done.' },
];

const trace = (entries: SessionTraceEntry[], evicted = 0): SessionTrace => ({
  format: 1,
  agentId: 'a',
  sessionId: 's',
  strategyId: 'x',
  maxBytes: 4096,
  evicted,
  entries,
});
const entry = (call: number, size: number, rest: Partial<SessionTraceEntry> = {}): SessionTraceEntry => ({
  call,
  at: 0,
  history: size,
  sent: size,
  reductions: [],
  ...rest,
});

describe('explainSession', () => {
  it('finds every message holding the text, tool call arguments included', () => {
    const explanation = explainSession(trace([entry(1, 5)]), history, 'S61CZX');
    expect(explanation.messages.map((life) => life.index)).toEqual([0, 1, 2]);
    expect(explanation.messages[1]!.toolCallIds).toEqual(['call_1']);
  });

  it('reads a sparse trim by its refs: only the tool output sent behind a ref is trimmed', () => {
    const trimmed = entry(2, 5, {
      reductions: [
        { action: 'trimmed', from: 1, to: 4, messages: 1, reason: 'tool output over budget', refs: ['to_1'] },
      ],
      outputRefs: [[2, 'to_1']],
    });
    const explanation = explainSession(trace([entry(1, 5), trimmed]), history, 'S61CZX');
    expect(explanation.messages[1]!.spans).toEqual([{ state: 'verbatim', from: 1, to: 2 }]);
    expect(explanation.messages[2]!.spans).toEqual([
      { state: 'verbatim', from: 1, to: 1 },
      { state: 'trimmed', reason: 'tool output over budget', refs: ['to_1'], from: 2, to: 2 },
    ]);
  });

  it('names the summary version from the summarized record, and a recall over a drop', () => {
    const entries = [
      entry(1, 2),
      entry(2, 4, {
        reductions: [{ action: 'dropped', from: 0, to: 2, messages: 2, reason: 'older than the window' }],
      }),
      entry(3, 5, {
        reductions: [{ action: 'summarized', from: 0, to: 3, messages: 3, reason: 'folded', refs: ['summary:2'] }],
        summaryVersion: 2,
      }),
      entry(4, 5, {
        reductions: [
          { action: 'dropped', from: 0, to: 3, messages: 3, reason: 'older than the window' },
          { action: 'recalled', from: 0, to: 1, messages: 1, reason: 'matches the question' },
        ],
      }),
      entry(5, 5, { pinned: [0] }),
    ];
    const [first] = explainSession(trace(entries), history, 'Cancel').messages;
    expect(first!.spans.map(({ state, summaryVersion, from, to }) => ({ state, summaryVersion, from, to }))).toEqual([
      { state: 'verbatim', summaryVersion: undefined, from: 1, to: 1 },
      { state: 'dropped', summaryVersion: undefined, from: 2, to: 2 },
      { state: 'summarized', summaryVersion: 2, from: 3, to: 3 },
      { state: 'recalled', summaryVersion: undefined, from: 4, to: 4 },
      { state: 'pinned', summaryVersion: undefined, from: 5, to: 5 },
    ]);
  });

  it('says a message was seen before the trace when older composes were left out', () => {
    const [life] = explainSession(trace([entry(7, 5)], 6), history, 'Cancel').messages;
    expect(life).toMatchObject({ seenBefore: true, calls: [{ call: 7, state: 'verbatim' }] });
    expect(life!.firstSeen).toBeUndefined();
  });
});
