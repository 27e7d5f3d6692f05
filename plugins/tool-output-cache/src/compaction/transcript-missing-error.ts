import { CtxkitError, ErrorCodes } from '@ctxkit/core';

/** The transcript saved before a compaction cannot be read, so the compaction cannot be undone. */
export class TranscriptMissingError extends CtxkitError {
  constructor(transcriptRef: string, problem: string) {
    super({
      code: ErrorCodes.STORE_ERROR,
      category: 'internal',
      message: `The transcript ${transcriptRef} saved before the compaction cannot be read: ${problem}.`,
      fix:
        'Keep the session\'s transcripts (store kind "transcript") for as long as its compactions may be undone; ' +
        'the epoch is still in the log, so the undo can be tried again once the transcript is back.',
      details: { transcriptRef, problem },
    });
  }
}
