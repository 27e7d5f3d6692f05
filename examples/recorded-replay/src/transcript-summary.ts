const TRANSCRIPT = /<transcript first_message="(\d+)" last_message="(\d+)">([\s\S]*?)<\/transcript>/;
const PREVIOUS = /<previous_summary>([\s\S]*?)<\/previous_summary>/;
/** Six-character airline reservation codes (letters and digits, at least one of each), not flight numbers. */
const RESERVATION = /\b(?!HAT\d{3}\b)(?=[A-Z0-9]{6}\b)(?=[A-Z0-9]*\d)[A-Z0-9]*[A-Z][A-Z0-9]*\b/g;
const FLIGHT = /\bHAT\d{3}\b/g;

/** The items a summary check asked to put back: the quoted strings of its "Include each of these" line. */
function askedBack(request: string): string[] {
  const line = /Include each of these exactly as written[^:]*: (.*)\.$/m.exec(request)?.[1];
  if (line === undefined) return [];
  return [...line.matchAll(/"(?:[^"\\]|\\.)*"/g)].map((quoted) => JSON.parse(quoted[0]) as string);
}

function distinct(matches: RegExpMatchArray | null): string[] {
  return [...new Set(matches ?? [])].sort();
}

/**
 * The reply a model asked for a summary of an airline conversation could give, written from the
 * summary request's text (the summarization strategy's prompt): a `<summary>` block naming the
 * messages of the transcript and the reservation codes and flight numbers found in the transcript
 * and in the previous summary, plus whatever a check of its first answer asked it to put back. The examples' stand-in
 * for the model an application configured for summaries: offline and deterministic.
 */
export function transcriptSummaryReply(request: string): string {
  const transcript = TRANSCRIPT.exec(request);
  const text = `${PREVIOUS.exec(request)?.[1] ?? ''}\n${transcript?.[3] ?? ''}`;
  const reservations = distinct(text.match(RESERVATION));
  const flights = distinct(text.match(FLIGHT));
  const summary = [
    `Messages ${transcript?.[1] ?? '?'}-${transcript?.[2] ?? '?'} summarized by the application's model.`,
    `Reservations: ${reservations.join(', ') || 'none'}.`,
    `Flights: ${flights.join(', ') || 'none'}.`,
    ...(askedBack(request).length > 0 ? [`Also: ${askedBack(request).join('; ')}.`] : []),
  ].join(' ');
  return `<summary>\n${summary}\n</summary>`;
}
