import { messageDates, questionDate, sessionHeaderDate } from './session-dates';

describe('session dates', () => {
  it('reads the LongMemEval and LoCoMo session headers', () => {
    expect(sessionHeaderDate('[Session 3 · 2023/05/20 (Sat) 14:29]\nI am having issues')).toBe(
      Date.UTC(2023, 4, 20, 14, 29),
    );
    expect(sessionHeaderDate('[Session 1 · 1:56 pm on 8 May, 2023]\nCaroline: Hey')).toBe(Date.UTC(2023, 4, 8, 13, 56));
    expect(sessionHeaderDate('[Session 2 · 12:05 am on 1 January, 2024]')).toBe(Date.UTC(2024, 0, 1, 0, 5));
    expect(sessionHeaderDate('no header')).toBeUndefined();
    expect(questionDate('2023/05/30 (Tue) 23:40')).toBe(Date.UTC(2023, 4, 30, 23, 40));
  });

  it('dates every message by its session, carrying the date forward', () => {
    expect(
      messageDates([
        'hello',
        '[Session 1 · 2023/01/02 (Mon) 10:00]\nhi',
        'reply',
        '[Session 2 · 2023/02/03 (Fri) 11:00]\nagain',
      ]),
    ).toEqual([
      Date.UTC(2023, 0, 2, 10, 0),
      Date.UTC(2023, 0, 2, 10, 0),
      Date.UTC(2023, 0, 2, 10, 0),
      Date.UTC(2023, 1, 3, 11, 0),
    ]);
  });
});
