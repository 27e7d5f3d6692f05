import { type ChatMessage, createTokenCounter } from '@ctxkit/core';

import { CalibratedTokenCounter } from './calibrated-token-counter';
import { CountCalibration } from './count-calibration';
import { UsageAnchoredCount } from './usage-anchored-count';

const counter = createTokenCounter({ model: 'gpt-4o' });
const system: ChatMessage = { role: 'system', content: 'You are terse.' };
const first: ChatMessage = { role: 'user', content: 'Find the booking for Mia Li.' };
const answer: ChatMessage = { role: 'assistant', content: 'Booking 4WQ150, flight HAT039 on May 16.' };
const next: ChatMessage = { role: 'user', content: 'Change it to the next day.' };

describe('UsageAnchoredCount', () => {
  it('adds the calibrated count of the new messages to the provider report of the previous payload', () => {
    const anchored = new UsageAnchoredCount(counter, new CountCalibration());
    const reported = Math.round(counter.countMessages([system, first]) * 1.2);
    anchored.record({ messages: [system, first] }, reported);
    // a copy rebuilt from JSON is the same prefix
    const payload = { messages: [...JSON.parse(JSON.stringify([system, first])), answer, next] as ChatMessage[] };
    const estimate = anchored.count(payload);
    expect(estimate.anchoredMessages).toBe(2);
    const correction = anchored['calibration'].correction;
    expect(estimate.tokens).toBe(reported + Math.ceil(counter.countMessages([answer, next]) * correction));
    expect(estimate.rawTokens).toBe(counter.countMessages(payload.messages));
  });

  it('counts the whole payload when the prefix changed (a message dropped or edited, other tools)', () => {
    const anchored = new UsageAnchoredCount(counter, new CountCalibration());
    anchored.record(
      { messages: [system, first, answer] },
      Math.round(counter.countMessages([system, first, answer]) * 1.2),
    );
    const calibrated = (messages: ChatMessage[]) => anchored['calibration'].calibrate(counter.countMessages(messages));
    expect(anchored.count({ messages: [system, answer, next] })).toEqual({
      tokens: calibrated([system, answer, next]),
      rawTokens: counter.countMessages([system, answer, next]),
      anchoredMessages: 0,
    });
    expect(anchored.count({ messages: [system, first, { ...answer, content: 'edited' }, next] }).anchoredMessages).toBe(
      0,
    );
    expect(
      anchored.count({
        messages: [system, first, answer, next],
        tools: [{ type: 'function', function: { name: 'lookup', parameters: {} } }],
      }).anchoredMessages,
    ).toBe(0);
    anchored.reset();
    expect(anchored.count({ messages: [system, first, answer, next] }).anchoredMessages).toBe(0);
  });

  it('drops the anchor after an unusable report', () => {
    const anchored = new UsageAnchoredCount(counter, new CountCalibration());
    anchored.record({ messages: [system, first] }, Math.round(counter.countMessages([system, first]) * 1.2));
    expect(anchored.record({ messages: [system, first, answer] }, 0)).toBeUndefined();
    expect(anchored.count({ messages: [system, first, answer, next] }).anchoredMessages).toBe(0);
    // a report no tokenizer could explain anchors nothing either
    anchored.record({ messages: [system, first] }, Math.round(counter.countMessages([system, first]) * 1.2));
    expect(anchored.record({ messages: [system, first, answer] }, 100_000)!.ignored).toBe(true);
    expect(anchored.count({ messages: [system, first, answer, next] }).anchoredMessages).toBe(0);
  });
});

describe('CalibratedTokenCounter', () => {
  it('multiplies every count by the correction, rounded up, and says so in meta()', () => {
    const calibration = new CountCalibration();
    const calibrated = new CalibratedTokenCounter(counter, calibration);
    expect(calibrated.countMessages([first, answer])).toBe(counter.countMessages([first, answer]));
    expect(calibrated.meta()).toEqual(counter.meta());
    for (let i = 0; i < 8; i++) calibration.observe(1000, 1200);
    expect(calibrated.countMessage(first)).toBe(Math.ceil(counter.countMessage(first) * calibration.correction));
    expect(calibrated.countTools([{ type: 'function', function: { name: 'lookup', parameters: {} } }])).toBeGreaterThan(
      counter.countTools([{ type: 'function', function: { name: 'lookup', parameters: {} } }]),
    );
    expect(calibrated.meta().approximate).toBe(true);
    expect(calibrated.meta().note).toMatch(/learned from the provider's reported input tokens over 8 calls/);
  });

  it('keeps the countUpTo contract: exact at or under the limit, over it otherwise', () => {
    const calibration = new CountCalibration();
    for (let i = 0; i < 8; i++) calibration.observe(1000, 1300);
    const calibrated = new CalibratedTokenCounter(counter, calibration);
    const text = 'word '.repeat(400);
    const exact = calibrated.count(text);
    expect(calibrated.countUpTo(text, exact)).toBe(exact);
    expect(calibrated.countUpTo(text, exact - 50)).toBeGreaterThan(exact - 50);
  });
});
