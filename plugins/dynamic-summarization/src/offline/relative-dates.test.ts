import { annotateRelativeDates } from './relative-dates';

describe('annotateRelativeDates', () => {
  it('adds the calendar meaning after each relative expression, keeping the text as it was', () => {
    expect(annotateRelativeDates('I went there yesterday.', '8 May, 2023')).toBe(
      'I went there yesterday [7 May, 2023].',
    );
    expect(annotateRelativeDates('We met last Friday and last week.', 'June 9, 2023')).toBe(
      'We met last Friday [the Friday before June 9, 2023] and last week [the week before June 9, 2023].',
    );
    expect(annotateRelativeDates('I joined last Tues.', '20 July, 2023')).toBe(
      'I joined last Tues [the Tuesday before 20 July, 2023].',
    );
    expect(annotateRelativeDates('Last month I moved; next year I retire.', '2023-01-15')).toBe(
      'Last month [2022-12] I moved; next year [2024] I retire.',
    );
    expect(annotateRelativeDates('Three years ago I started.', '9 June, 2023')).toBe(
      'Three years ago [three years before 9 June, 2023] I started.',
    );
    expect(annotateRelativeDates('昨日、予約しました。', '2024年5月1日')).toBe('昨日 [2024年4月30日]、予約しました。');
  });

  it('leaves the text alone without a parsable date', () => {
    expect(annotateRelativeDates('I went there yesterday.', undefined)).toBe('I went there yesterday.');
    expect(annotateRelativeDates('I went there yesterday.', 'some day')).toBe('I went there yesterday.');
  });
});
