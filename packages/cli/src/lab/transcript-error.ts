import { CtxkitError, ErrorCodes } from '@ctxkit/core';

/** Where in a transcript a problem is: the file and the line (1 for a file read as one JSON document). */
export interface TranscriptPlace {
  file: string;
  line: number;
}

/** The typed error for a transcript line that cannot be read (`CTXKIT_HISTORY_INVALID`), naming file and line. */
export function transcriptError(
  place: TranscriptPlace,
  problem: string,
  fix: string,
  details: Record<string, unknown> = {},
): CtxkitError {
  return new CtxkitError({
    code: ErrorCodes.HISTORY_INVALID,
    category: 'user',
    message: `${place.file}:${place.line}: ${problem}.`,
    fix,
    details: { file: place.file, line: place.line, problem, ...details },
  });
}
