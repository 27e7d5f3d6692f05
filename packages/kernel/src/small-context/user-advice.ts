/**
 * Mode D: plain-language suggestions for a user who never learns what a token is.
 * First the agent's own alternative (work on a large file part by part), and as the last resort a
 * suggestion to split the work or try a smaller file. No jargon beyond "file" and "part".
 */

/** Said when a file was too large and came back as an outline plus a part (the automatic alternative). */
export function splitReadingAdvice(fileName: string, lineCount: number): string {
  return (
    `${fileName} (${lineCount.toLocaleString('en-US')} lines) is large for this setup, so it is read part by ` +
    `part: an outline first, then the sections the work needs.`
  );
}

/** Said when even the fallbacks cannot fit the next request (the last resort). */
export function cannotFitAdvice(): string {
  return (
    'This task is too large for the current setup. Try it with a smaller file, or split the work into smaller ' +
    'steps and ask for one at a time.'
  );
}
