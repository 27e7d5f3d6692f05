import { CtxkitError } from './ctxkit-error';
import { ErrorCodes } from './error-codes';

/**
 * A store key part cannot be stored: not a string, empty, or longer than a stored key part may be
 * (or a `kind` outside the store kinds, or an invalid store prefix).
 */
export class StoreKeyError extends CtxkitError {
  constructor(part: string, value: string) {
    const shown = value.length > 80 ? `${value.slice(0, 80)}… (${value.length} characters)` : value;
    super({
      code: ErrorCodes.STORE_KEY_INVALID,
      category: 'user',
      message: `Invalid store key ${part} ${JSON.stringify(shown)}.`,
      fix:
        part === 'kind'
          ? 'Use one of the store kinds: summary, entities, tool-output, transcript, state.'
          : part === 'prefix'
            ? 'A listing prefix is an object { agentId, sessionId?, kind? }; a Redis key prefix is 1 to 100 ' +
              'characters of [A-Za-z0-9._:@-], not ending with ":".'
            : 'Use a non-empty string whose stored form has at most 200 characters (each character outside ' +
              '[A-Za-z0-9._:@-] takes 3 or 6): shorten or hash longer ids (for example their SHA-256 in hex).',
      details: { part, value },
    });
  }
}
