import { type CalendarDate, formatCalendarDate, formatCalendarMonth, parseCalendarDate } from './session-date';

const WEEKDAYS = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];
const COUNT_WORDS =
  '\\d+|a|an|one|two|three|four|five|six|seven|eight|nine|ten|a few|few|several|couple of|a couple of';

/**
 * Relative time expressions that a session date resolves. The source text is left as it is; the
 * resolved date is added after the expression in brackets.
 */
const RELATIVE = new RegExp(
  [
    '\\b(yesterday|last night)\\b',
    '\\b(last (?:week(?:end)?|(?:mon|tues|wednes|thurs|fri|satur|sun)day|mon|tues?|wed|thu(?:rs)?|fri|sat))\\b',
    '\\b(last month|last year|next month|next year)\\b',
    `\\b((?:${COUNT_WORDS}) (?:days?|weeks?|weekends?|months?|years?) ago)\\b`,
    '(昨日|昨夜|去年|先月)',
  ].join('|'),
  'gi',
);

function shiftDays(time: Date, days: number): Date {
  return new Date(time.getTime() + days * 86_400_000);
}

function shiftMonths(time: Date, months: number): Date {
  return new Date(Date.UTC(time.getUTCFullYear(), time.getUTCMonth() + months, 1));
}

/** What a relative expression means on the given date, or `undefined` when it is left alone. */
function resolve(expression: string, on: CalendarDate): string | undefined {
  const lower = expression.toLowerCase();
  const day = formatCalendarDate(on.time, on.style);
  if (lower === 'yesterday' || lower === 'last night' || expression === '昨日' || expression === '昨夜') {
    return formatCalendarDate(shiftDays(on.time, -1), on.style);
  }
  if (lower === 'last month' || expression === '先月') return formatCalendarMonth(shiftMonths(on.time, -1), on.style);
  if (lower === 'next month') return formatCalendarMonth(shiftMonths(on.time, 1), on.style);
  if (lower === 'last year' || expression === '去年') return String(on.time.getUTCFullYear() - 1);
  if (lower === 'next year') return String(on.time.getUTCFullYear() + 1);
  if (lower === 'last week') return `the week before ${day}`;
  if (lower === 'last weekend') return `the weekend before ${day}`;
  if (lower.startsWith('last ')) {
    // Full names and abbreviations (`last Tues`).
    const weekday = WEEKDAYS.find((name) => name.toLowerCase().startsWith(lower.slice(5)));
    return weekday ? `the ${weekday} before ${day}` : undefined;
  }
  if (lower.endsWith(' ago')) return `${lower.slice(0, -4)} before ${day}`;
  return undefined;
}

/**
 * Adds the calendar meaning of relative time expressions ("yesterday", "last week", "last Friday",
 * "two days ago", "last year", 昨日) after them, resolved against the date the text was written
 * (`I went there yesterday [7 May, 2023]`). Returns the text unchanged without a parsable date.
 */
export function annotateRelativeDates(text: string, writtenOn: string | undefined): string {
  if (writtenOn === undefined) return text;
  const on = parseCalendarDate(writtenOn);
  if (!on) return text;
  RELATIVE.lastIndex = 0;
  return text.replace(RELATIVE, (expression: string) => {
    const meaning = resolve(expression, on);
    return meaning === undefined ? expression : `${expression} [${meaning}]`;
  });
}
