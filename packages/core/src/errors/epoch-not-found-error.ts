import { closest } from './closest-id';
import { CtxkitError } from './ctxkit-error';
import { ErrorCodes } from './error-codes';

/** `undo(epochId)` named an epoch the session does not have (never recorded, already undone, or forgotten). */
export class EpochNotFoundError extends CtxkitError {
  constructor(sessionId: string, epochId: string, available: readonly string[]) {
    const suggestion = closest(epochId, available);
    super({
      code: ErrorCodes.EPOCH_NOT_FOUND,
      category: 'user',
      message:
        `Session "${sessionId}" has no epoch ` + `"${epochId}"${suggestion ? ` (did you mean "${suggestion}"?)` : ''}.`,
      fix:
        available.length > 0
          ? `Undo one of the epochs the session has: ${available.join(', ')} (session.epochs() lists them). An ` +
            `epoch is gone once undone, or once more than maxEpochs newer ones were recorded.`
          : 'The session has no epoch to undo: nothing was folded, extracted, compacted or trimmed since it started ' +
            'or since the last undo (session.epochs() lists them).',
      details: { sessionId, epochId, available: [...available] },
    });
  }
}
