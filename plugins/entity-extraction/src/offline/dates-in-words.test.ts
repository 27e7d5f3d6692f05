import { datesInWords, isoDate } from './dates-in-words';

describe('datesInWords', () => {
  describe('#find', () => {
    it('reads month-first and day-first dates, with and without a year', () => {
      expect(datesInWords('Fly on May 20th, back the 15th of June 2024, or 3 Sept. Born April 12, 2001.')).toEqual([
        { position: 7, month: 5, day: 20, year: null },
        { position: 26, month: 6, day: 15, year: 2024 },
        { position: 48, month: 9, day: 3, year: null },
        { position: 61, month: 4, day: 12, year: 2001 },
      ]);
    });

    it('leaves out impossible days, times and the verb "may"', () => {
      expect(datesInWords('February 30th, June 31, you may 2 bags, at 10:30 on Mar 5:00')).toEqual([]);
      expect(datesInWords('may 2nd works')).toEqual([{ position: 0, month: 5, day: 2, year: null }]);
    });
  });

  describe('#isoDate', () => {
    it('formats a date and refuses a day the year does not have', () => {
      expect(isoDate(2024, 5, 2)).toBe('2024-05-02');
      expect(isoDate(2024, 2, 29)).toBe('2024-02-29');
      expect(isoDate(2023, 2, 29)).toBeNull();
    });
  });
});
