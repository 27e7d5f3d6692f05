import type { CliOutput } from '../cli-output';
import { wrapToColumns } from '../report/terminal-width';
import type { SkippedRecord } from './read-transcript';

/** Prints a conversation left out of a transcript on stderr: `Skipped <file>:<line>: <reason>. Fix: ...`. */
export function printSkipped(output: CliOutput): (skipped: SkippedRecord) => void {
  return ({ error }) => output.err(`${wrapToColumns(`Skipped ${error.message}`)}\n`);
}
