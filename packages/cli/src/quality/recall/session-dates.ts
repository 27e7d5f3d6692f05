/**
 * Session headers the long-memory data sets start each session with, and their dates:
 * LongMemEval `[Session 3 · 2023/05/20 (Sat) 14:29]`, LoCoMo `[Session 1 · 1:56 pm on 8 May, 2023]`.
 * The replay sets the runtime's clock to each session's date, as a live assistant would have seen
 * those turns arrive.
 */
const LONGMEMEVAL_HEADER = /^\[Session \d+ · (\d{4})\/(\d{2})\/(\d{2}) \(\w+\) (\d{2}):(\d{2})\]/;
const LOCOMO_HEADER = /^\[Session \d+ · (\d{1,2}):(\d{2}) (am|pm) on (\d{1,2}) (\w+),? (\d{4})\]/;
const MONTHS = [
  'january',
  'february',
  'march',
  'april',
  'may',
  'june',
  'july',
  'august',
  'september',
  'october',
  'november',
  'december',
];

/** The date (ms since epoch, UTC) a session header names, or undefined when `text` starts with none. */
export function sessionHeaderDate(text: string): number | undefined {
  const long = LONGMEMEVAL_HEADER.exec(text);
  if (long) return Date.UTC(Number(long[1]), Number(long[2]) - 1, Number(long[3]), Number(long[4]), Number(long[5]));
  const locomo = LOCOMO_HEADER.exec(text);
  if (locomo) {
    const month = MONTHS.indexOf(locomo[5]!.toLowerCase());
    if (month < 0) return undefined;
    const hour = (Number(locomo[1]) % 12) + (locomo[3] === 'pm' ? 12 : 0);
    return Date.UTC(Number(locomo[6]), month, Number(locomo[4]), hour, Number(locomo[2]));
  }
  return undefined;
}

/** LongMemEval's question date (`2023/05/30 (Tue) 23:40`) as ms since epoch, UTC. */
export function questionDate(text: string): number | undefined {
  return sessionHeaderDate(`[Session 0 · ${text}]`);
}

/** Each message's date: its session's header date, carried forward (the first date for messages before any header). */
export function messageDates(texts: ReadonlyArray<string>): number[] {
  const dates: number[] = [];
  let current: number | undefined;
  for (const text of texts) {
    current = sessionHeaderDate(text) ?? current;
    dates.push(current ?? Number.NaN);
  }
  const first = dates.find((date) => !Number.isNaN(date)) ?? 0;
  return dates.map((date) => (Number.isNaN(date) ? first : date));
}
