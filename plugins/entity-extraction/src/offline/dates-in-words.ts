/** A calendar date written with the month's name, found in a text. */
export interface DateInWords {
  /** Character offset of the mention in the text. */
  position: number;
  /** 1 to 12. */
  month: number;
  day: number;
  /** The year when the text gives one, else `null` (the caller infers it). */
  year: number | null;
}

const MONTHS: ReadonlyArray<readonly [number, string]> = [
  [1, 'january|jan'],
  [2, 'february|feb'],
  [3, 'march|mar'],
  [4, 'april|apr'],
  [5, 'may'],
  [6, 'june|jun'],
  [7, 'july|jul'],
  [8, 'august|aug'],
  [9, 'september|sept|sep'],
  [10, 'october|oct'],
  [11, 'november|nov'],
  [12, 'december|dec'],
];

const MONTH = `(${MONTHS.map(([, names]) => names).join('|')})\\.?`;
const DAY = '([0-9]{1,2})(st|nd|rd|th)?';
const YEAR = '(?:,?\\s+((?:19|20)[0-9]{2}))?';
/** "May 20th", "May 20, 2024", "Sept. 3rd 2024". */
const MONTH_FIRST = new RegExp(`(?<![A-Za-z0-9])${MONTH}\\s+${DAY}(?![0-9A-Za-z:])${YEAR}(?![0-9])`, 'gi');
/** "20 May", "the 15th of May 2024", "3rd of June, 2024". */
const DAY_FIRST = new RegExp(`(?<![A-Za-z0-9])${DAY}\\s+(?:of\\s+)?${MONTH}(?![A-Za-z])${YEAR}(?![0-9])`, 'gi');

function monthNumber(name: string): number {
  const lower = name.toLowerCase().replace(/\.$/, '');
  return MONTHS.find(([, names]) => names.split('|').includes(lower))![0];
}

/** True when `day` exists in `month` (February 29 is accepted without a year; the year is checked later). */
function dayExists(month: number, day: number): boolean {
  const lengths = [31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];
  return day >= 1 && day <= lengths[month - 1]!;
}

/**
 * The dates written with a month name in a text, in order of position: month first ("May 20th",
 * "May 20, 2024") or day first ("20 May", "the 15th of May 2024"), with an optional four-digit
 * year. Days that do not exist in the month are left out; so is the lower-case word "may" without
 * an ordinal suffix or a year ("you may 2 ..." is not a date).
 */
export function datesInWords(text: string): DateInWords[] {
  const found: DateInWords[] = [];
  const taken: Array<[number, number]> = [];
  const add = (
    position: number,
    length: number,
    monthName: string,
    dayText: string,
    suffix: string | undefined,
    yearText: string | undefined,
  ) => {
    if (monthName === 'may' && !suffix && !yearText) return;
    const month = monthNumber(monthName);
    const day = Number(dayText);
    if (!dayExists(month, day)) return;
    if (taken.some(([start, end]) => position < end && position + length > start)) return;
    taken.push([position, position + length]);
    found.push({ position, month, day, year: yearText ? Number(yearText) : null });
  };
  for (const match of text.matchAll(MONTH_FIRST))
    add(match.index, match[0].length, match[1]!, match[2]!, match[3], match[4]);
  for (const match of text.matchAll(DAY_FIRST))
    add(match.index, match[0].length, match[3]!, match[1]!, match[2], match[4]);
  return found.sort((a, b) => a.position - b.position);
}

/** `YYYY-MM-DD` of a date, or `null` when the day does not exist in that year (February 29). */
export function isoDate(year: number, month: number, day: number): string | null {
  const date = new Date(Date.UTC(year, month - 1, day));
  if (date.getUTCFullYear() !== year || date.getUTCMonth() !== month - 1 || date.getUTCDate() !== day) return null;
  return `${String(year).padStart(4, '0')}-${String(month).padStart(2, '0')}-${String(day).padStart(2, '0')}`;
}
