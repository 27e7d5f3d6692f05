const ISO_DATE = /(?<![0-9])((?:19|20)[0-9]{2})-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01])(?![0-9])/g;

/**
 * The year given to a date written without one ("May 20th"): the year of the latest full date
 * (`YYYY-MM-DD`, also inside date-times) in the texts read and the current state (the present of
 * the conversation, as the flight dates and booking times of tool results show it: a date of birth
 * is older and does not win); without any, the year of `now` (the strategy's clock); `null` when
 * there is neither.
 */
export function referenceYear(texts: readonly string[], stateJson: string, now: number | undefined): number | null {
  let latest: string | null = null;
  for (const text of [...texts, stateJson]) {
    for (const match of text.matchAll(ISO_DATE)) {
      const date = `${match[1]}-${match[2]}-${match[3]}`;
      if (latest === null || date > latest) latest = date;
    }
  }
  if (latest !== null) return Number(latest.slice(0, 4));
  return now === undefined || !Number.isFinite(now) ? null : new Date(now).getUTCFullYear();
}
