/**
 * Session dates: multi-session chats often open each session with a line such as
 * `[Session 3 · 6:20 pm on 9 June, 2023]`. The offline summarizer files every kept line under the
 * date of the session it came from, so that "when did …" stays answerable after the turn is gone.
 */

/** A session opening read from the first line of a message. */
export interface SessionOpening {
  /** The date as written in the source, without the time of day (`9 June, 2023`). */
  date: string;
  /** The message text after the opening line. */
  rest: string;
}

const MONTH_NAMES = [
  'January',
  'February',
  'March',
  'April',
  'May',
  'June',
  'July',
  'August',
  'September',
  'October',
  'November',
  'December',
];
const MONTH_PATTERN =
  'Jan(?:uary)?|Feb(?:ruary)?|Mar(?:ch)?|Apr(?:il)?|May|June?|July?|Aug(?:ust)?|Sep(?:t(?:ember)?)?|Oct(?:ober)?|Nov' +
  '(?:ember)?|Dec(?:ember)?';

/** `9 June, 2023` / `9 June 2023`. */
const DAY_MONTH_YEAR = new RegExp(`\\b(\\d{1,2}) (${MONTH_PATTERN})\\.?,? (\\d{4})\\b`, 'i');
/** `June 9, 2023` / `June 9 2023`. */
const MONTH_DAY_YEAR = new RegExp(`\\b(${MONTH_PATTERN})\\.? (\\d{1,2})(?:st|nd|rd|th)?,? (\\d{4})\\b`, 'i');
/** `2023-06-09`. */
const ISO_DATE = /\b(\d{4})-(\d{2})-(\d{2})\b/;
/** `2023年6月9日`. */
const JAPANESE_DATE = /(\d{4})年(\d{1,2})月(\d{1,2})日/;

/** A first line in brackets, at most this long, may open a session. */
const OPENING_LINE = /^\s*\[([^\]\n]{4,100})\][ \t]*(?:\n|$)/;

/** How a date was written, so that derived dates are written the same way. */
export type DateStyle = 'day-month-year' | 'month-day-year' | 'iso' | 'japanese';

/** A calendar date (UTC) and the style it was written in. */
export interface CalendarDate {
  time: Date;
  style: DateStyle;
}

function monthIndex(name: string): number {
  const prefix = name.slice(0, 3).toLowerCase();
  return MONTH_NAMES.findIndex((month) => month.slice(0, 3).toLowerCase() === prefix);
}

function utcDate(year: number, month: number, day: number): Date | undefined {
  const time = new Date(Date.UTC(year, month, day));
  return time.getUTCMonth() === month && time.getUTCDate() === day ? time : undefined;
}

/** Reads the first calendar date in a text, or `undefined`. */
export function parseCalendarDate(text: string): CalendarDate | undefined {
  let match = DAY_MONTH_YEAR.exec(text);
  if (match) {
    const time = utcDate(Number(match[3]), monthIndex(match[2]!), Number(match[1]));
    if (time) return { time, style: 'day-month-year' };
  }
  match = MONTH_DAY_YEAR.exec(text);
  if (match) {
    const time = utcDate(Number(match[3]), monthIndex(match[1]!), Number(match[2]));
    if (time) return { time, style: 'month-day-year' };
  }
  match = ISO_DATE.exec(text);
  if (match) {
    const time = utcDate(Number(match[1]), Number(match[2]) - 1, Number(match[3]));
    if (time) return { time, style: 'iso' };
  }
  match = JAPANESE_DATE.exec(text);
  if (match) {
    const time = utcDate(Number(match[1]), Number(match[2]) - 1, Number(match[3]));
    if (time) return { time, style: 'japanese' };
  }
  return undefined;
}

/** Writes a date in the given style (`9 June, 2023`, `June 9, 2023`, `2023-06-09`, `2023年6月9日`). */
export function formatCalendarDate(time: Date, style: DateStyle): string {
  const year = time.getUTCFullYear();
  const month = time.getUTCMonth();
  const day = time.getUTCDate();
  switch (style) {
    case 'day-month-year':
      return `${day} ${MONTH_NAMES[month]!}, ${year}`;
    case 'month-day-year':
      return `${MONTH_NAMES[month]!} ${day}, ${year}`;
    case 'iso':
      return `${year}-${String(month + 1).padStart(2, '0')}-${String(day).padStart(2, '0')}`;
    case 'japanese':
      return `${year}年${month + 1}月${day}日`;
  }
}

/** Writes a month in the given style (`May 2023`, `2023-05`, `2023年5月`). */
export function formatCalendarMonth(time: Date, style: DateStyle): string {
  const year = time.getUTCFullYear();
  const month = time.getUTCMonth();
  if (style === 'iso') return `${year}-${String(month + 1).padStart(2, '0')}`;
  if (style === 'japanese') return `${year}年${month + 1}月`;
  return `${MONTH_NAMES[month]!} ${year}`;
}

/**
 * Reads a session opening: a bracketed first line that carries a calendar date
 * (`[Session 3 · 6:20 pm on 9 June, 2023]`, `[2024-05-20]`). The date is kept as written, without
 * the session number or the time of day. Returns `undefined` for any other text.
 */
export function readSessionOpening(text: string): SessionOpening | undefined {
  const match = OPENING_LINE.exec(text);
  if (!match) return undefined;
  const inside = match[1]!;
  if (!parseCalendarDate(inside)) return undefined;
  const afterOn = inside.lastIndexOf(' on ');
  const date = (afterOn === -1 ? inside.replace(/^Session\s*\d+\s*[·:,-]?\s*/i, '') : inside.slice(afterOn + 4)).trim();
  return { date, rest: text.slice(match[0].length) };
}
