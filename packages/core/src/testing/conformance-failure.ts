import { CtxkitError } from '../errors/ctxkit-error';
import { ErrorCodes } from '../errors/error-codes';

/** Which invariant of the strategy contract a failure breaks. */
export type ConformanceInvariant =
  | 'priority'
  | 'budget'
  | 'validity'
  | 'immutability'
  | 'reporting'
  | 'stats'
  | 'events'
  | 'errors'
  | 'determinism'
  /** Pins kept verbatim after the system prompt, through the session layer every agent uses. */
  | 'pins';

/** One broken promise, found by a check. */
export interface ConformanceFailure {
  invariant: ConformanceInvariant;
  message: string;
  /** The case it happened in (set by the runner). */
  case?: string;
  /** Index of the step in the case (set by the runner). */
  step?: number;
}

/** One line per failure, for test output. */
function formatFailure(failure: ConformanceFailure): string {
  const where =
    failure.case === undefined ? '' : `[${failure.case}${failure.step === undefined ? '' : ` step ${failure.step}`}] `;
  return `${where}${failure.invariant}: ${failure.message}`;
}

/**
 * Thrown by the conformance suite when a strategy breaks an invariant (code `CTXKIT_STRATEGY_ERROR`,
 * category `plugin`). `details.failures` lists
 * every failure found (the message shows the first 20).
 */
export class ConformanceError extends CtxkitError {
  readonly failures: ConformanceFailure[];
  constructor(subject: string, failures: ConformanceFailure[]) {
    const shown = failures.slice(0, 20).map(formatFailure);
    const more = failures.length > shown.length ? `\n  ... and ${failures.length - shown.length} more` : '';
    super({
      code: ErrorCodes.STRATEGY_ERROR,
      category: 'plugin',
      message: `${subject}: ${failures.length} conformance failure(s):\n  ${shown.join('\n  ')}${more}\n`,
      fix: 'Fix the strategy so that it keeps the strategy invariants (see docs/06-writing-a-strategy.md).',
      details: { subject, failures },
    });
    this.failures = failures;
  }
}
