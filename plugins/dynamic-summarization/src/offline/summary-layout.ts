import type { InformationUnit } from './information-units';

/** The name the offline summarizer goes by in events, `stats.extra`, reports and docs. */
export const OFFLINE_SUMMARIZER_NAME = 'offline extractive summarizer (no LLM)';

const HEADER_PREFIX = `[${OFFLINE_SUMMARIZER_NAME}:`;
const SESSION_DATE_MARK = '; session date ';
const KEY_VALUES_PREFIX = 'Key values: ';
const NAMES_PREFIX = 'Names: ';
/** A date header line: `[9 June, 2023]`. */
const DATE_LINE = /^\[([^\]]{3,60})\]$/;
/** A unit line: `Ana: …`, `user: …`, `tool get_user_details: …`. */
const LABELLED_LINE =
  /^(user|assistant|system|tool(?: [\w.:-]+)?|[A-Z][\p{L}'’.-]*(?: [A-Z][\p{L}'’.-]*){0,2}): (.*)$/u;
/** A unit line as earlier versions wrote it: `- user #3: …`. */
const NUMBERED_LINE = /^- (.+?) #-?\d+: (.*)$/;

/** What a summary of this layout holds, read back for the next fold. */
export interface SummaryContents {
  keyValues: string[];
  /** Names (people, places, titles) listed on the "Names" line. */
  names: string[];
  /** Its lines, oldest first, with the date they were filed under. */
  units: InformationUnit[];
  /** The session date in force at the end of the summarized history. */
  sessionDate?: string;
}

function roleOfLabel(label: string): InformationUnit['role'] {
  if (label === 'user' || label === 'assistant' || label === 'system') return label;
  if (label === 'tool' || label.startsWith('tool ')) return 'tool';
  return 'summary';
}

/** The first line: who wrote the summary, which history messages it covers, and the session date in force. */
export function summaryHeader(lastIndex: number, sessionDate: string | undefined): string {
  return (
    `${HEADER_PREFIX} history messages ` +
    `0-${lastIndex}${sessionDate === undefined ? '' : `${SESSION_DATE_MARK}${sessionDate}`}]`
  );
}

/** `Key values: a, b, c`, or an empty string for no values. */
export function keyValuesLine(values: readonly string[]): string {
  return values.length > 0 ? `${KEY_VALUES_PREFIX}${values.join(', ')}` : '';
}

/** `Names: a, b, c`, or an empty string for no names. */
export function namesLine(names: readonly string[]): string {
  return names.length > 0 ? `${NAMES_PREFIX}${names.join(', ')}` : '';
}

/** A date header line, under which the lines of that session follow. */
export function dateLine(date: string): string {
  return `[${date}]`;
}

/** A unit as one line: `label: text` (the text alone when it has no label). */
export function unitLine(unit: Pick<InformationUnit, 'label' | 'text'>): string {
  return unit.label ? `${unit.label}: ${unit.text}` : unit.text;
}

/**
 * The summary's lines below the header: the key values and names lines (when not empty), then units
 * in conversation order, each session's lines under a date header line.
 */
export function renderSummaryBody(
  indexLines: readonly string[],
  units: ReadonlyArray<Pick<InformationUnit, 'label' | 'text' | 'date'>>,
): string[] {
  const lines: string[] = indexLines.filter((line) => line.length > 0);
  let date: string | undefined;
  for (const unit of units) {
    if (unit.date !== undefined && unit.date !== date) lines.push(dateLine(unit.date));
    date = unit.date;
    lines.push(unitLine(unit));
  }
  return lines;
}

/**
 * Reads a previous summary back into key values, units and the session date. Summaries of this
 * layout round-trip; any other text (an LLM's summary) is carried over line by line.
 */
export function parseSummary(summary: string | null): SummaryContents {
  const contents: SummaryContents = { keyValues: [], names: [], units: [] };
  if (!summary) return contents;
  const lines = summary.split('\n');
  let date: string | undefined;
  let position = 0;
  for (const raw of lines) {
    const line = raw.trim();
    if (line === '') continue;
    if (line.startsWith(HEADER_PREFIX)) {
      const mark = line.indexOf(SESSION_DATE_MARK);
      if (mark !== -1) contents.sessionDate = line.slice(mark + SESSION_DATE_MARK.length, -1);
      continue;
    }
    if (line.startsWith(KEY_VALUES_PREFIX)) {
      contents.keyValues.push(
        ...line
          .slice(KEY_VALUES_PREFIX.length)
          .split(', ')
          .filter((value) => value.length > 0),
      );
      continue;
    }
    if (line.startsWith(NAMES_PREFIX)) {
      contents.names.push(
        ...line
          .slice(NAMES_PREFIX.length)
          .split(', ')
          .filter((name) => name.length > 0),
      );
      continue;
    }
    const dated = DATE_LINE.exec(line);
    if (dated) {
      date = dated[1]!;
      continue;
    }
    const match = LABELLED_LINE.exec(line) ?? NUMBERED_LINE.exec(line);
    const label = match ? match[1]! : '';
    // A line of another summarizer (an LLM) is carried over as it is, without its list marker.
    const text = match ? match[2]! : line.replace(/^[-*]\s+/, '');
    const unit: InformationUnit = {
      text,
      label,
      order: -lines.length + position,
      position: position++,
      role: roleOfLabel(label),
    };
    contents.units.push(date === undefined ? unit : { ...unit, date });
  }
  return contents;
}
