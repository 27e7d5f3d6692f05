import { contentlessSummary } from './contentless-summary';

describe('contentlessSummary', () => {
  it.each([
    ['', 'empty'],
    [' \n ', 'empty'],
    ['…', 'empty'],
    ['OK', 'acknowledgement'],
    ['Understood.', 'acknowledgement'],
    ['Sure! Here is the updated summary:', 'acknowledgement'],
    ['Got it, will do.', 'acknowledgement'],
    ['Error: 503 Service Unavailable', 'error'],
    ['429 Too Many Requests', 'error'],
    ['Rate limit exceeded, retry in 20 s.', 'error'],
    ["I'm sorry, I can't help with that.", 'error'],
  ])('refuses %j as %s', (text, kind) => {
    expect(contentlessSummary(text)).toBe(kind);
  });

  it.each([
    'The user booked flight HAT101.',
    'Done: the user paid 120 dollars for RES1001.',
    'Error handling in src/main.c was rewritten; the tests pass.',
    'OK to rebook: the user accepted the fee of 150 dollars.',
    `Error: the build failed at step 3. ${'The agent then fixed the import order and reran the tests. '.repeat(8)}`,
  ])('accepts %j', (text) => {
    expect(contentlessSummary(text)).toBeUndefined();
  });
});
