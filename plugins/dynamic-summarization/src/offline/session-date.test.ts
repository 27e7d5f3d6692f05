import { formatCalendarDate, parseCalendarDate, readSessionOpening } from './session-date';

describe('readSessionOpening', () => {
  it('reads the date of a session opening line, without session number or time of day', () => {
    expect(readSessionOpening('[Session 3 · 6:20 pm on 9 June, 2023]\nAna: Hi!')).toEqual({
      date: '9 June, 2023',
      rest: 'Ana: Hi!',
    });
    expect(readSessionOpening('[2024-05-20]\nHello')).toEqual({ date: '2024-05-20', rest: 'Hello' });
    expect(readSessionOpening('[Session 2 · March 4, 2024]')).toEqual({ date: 'March 4, 2024', rest: '' });
  });

  it('ignores bracketed first lines without a date, and dates that are not on an opening line', () => {
    expect(readSessionOpening('[shares a photo of a dog]\nNice!')).toBeUndefined();
    expect(readSessionOpening('We met on 9 June, 2023.')).toBeUndefined();
  });
});

describe('parseCalendarDate / formatCalendarDate', () => {
  it('round-trips each style and rejects impossible dates', () => {
    for (const text of ['9 June, 2023', 'June 9, 2023', '2023-06-09', '2023年6月9日']) {
      const date = parseCalendarDate(text)!;
      expect(formatCalendarDate(date.time, date.style)).toBe(text);
    }
    expect(parseCalendarDate('31 February, 2023')).toBeUndefined();
  });
});
