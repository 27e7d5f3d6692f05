import wrapAnsi from 'wrap-ansi';

/** The width the lab's terminal output keeps to by default (`--wide` lifts it for the table). */
export const TERMINAL_COLUMNS = 100;

/**
 * Wraps each line of `text` to `columns` (by display width, colours ignored), at word boundaries
 * where it can and hard inside a word longer than a line. The continuation of an indented line (a
 * list item) is indented two spaces more than the line, so that the list stays readable.
 */
export function wrapToColumns(text: string, columns = TERMINAL_COLUMNS): string {
  return text
    .split('\n')
    .map((line) => {
      const indent = /^ */.exec(line)![0];
      const continuation = indent === '' ? '' : `${indent}  `;
      const [first = '', ...rest] = wrapAnsi(line.slice(indent.length), columns - indent.length, {
        hard: true,
        trim: true,
      }).split('\n');
      const tail = rest.length
        ? wrapAnsi(rest.join(' '), columns - continuation.length, { hard: true, trim: true }).split('\n')
        : [];
      return [indent + first, ...tail.map((part) => continuation + part)].join('\n');
    })
    .join('\n');
}
