import type { ErrorCode } from './error-codes';

/** Who is to blame, so that callers know whom to tell. */
export type ErrorCategory = 'user' | 'plugin' | 'provider' | 'internal';

/**
 * Marks a ctxkit error across copies of `@ctxkit/core`: the value lists the class names of the
 * error's class chain (`['BudgetExceededError', 'CtxkitError']`), so that each class's
 * `isInstance` is exact. (An error marked `true` by an older copy is a ctxkit error of unknown class.)
 */
const MARKER = Symbol.for('ctxkit.error');

function classChain(target: Function): string[] {
  const names: string[] = [];
  for (
    let current: unknown = target;
    typeof current === 'function' && current !== Error && current !== Function.prototype;
    current = Object.getPrototypeOf(current)
  ) {
    names.push((current as Function).name);
  }
  return names;
}

/** What a {@link CtxkitError} is made of: its code, category, message, fix and JSON-safe details. */
export interface CtxkitErrorOptions {
  code: ErrorCode;
  message: string;
  category: ErrorCategory;
  /** JSON-safe structured details (file, pointer, expected, available ids ...). */
  details?: Record<string, unknown>;
  /** How to fix it, in one sentence. Also appended to `message`. */
  fix?: string;
  cause?: unknown;
}

/**
 * Base of every error ctxkit throws: a stable `code`, a `category`, JSON-safe `details`, an
 * optional `fix`. Use {@link CtxkitError.isInstance} rather than `instanceof`: plugins installed
 * from npm may bring a second copy of core.
 */
export class CtxkitError extends Error {
  readonly code: ErrorCode;
  readonly category: ErrorCategory;
  readonly details: Record<string, unknown>;
  readonly fix: string | undefined;
  private readonly [MARKER]: readonly string[];

  constructor(options: CtxkitErrorOptions) {
    super(options.fix ? `${options.message} Fix: ${options.fix}` : options.message, { cause: options.cause });
    this.name = new.target.name;
    this[MARKER] = classChain(new.target);
    this.code = options.code;
    this.category = options.category;
    this.details = options.details ?? {};
    this.fix = options.fix;
  }

  /**
   * True when `error` is an instance of this class (or a subclass), from any copy of `@ctxkit/core`:
   * `CtxkitError.isInstance(e)` for any ctxkit error, `BudgetExceededError.isInstance(e)` only for
   * budget errors.
   */
  static isInstance<T extends CtxkitError>(this: abstract new (...args: never[]) => T, error: unknown): error is T {
    if (typeof error !== 'object' || error === null) return false;
    const marker = (error as Record<symbol, unknown>)[MARKER];
    if ((this as unknown) === CtxkitError) return marker === true || Array.isArray(marker);
    return Array.isArray(marker) && marker.includes(this.name);
  }

  toJSON(): Record<string, unknown> {
    return { name: this.name, code: this.code, category: this.category, message: this.message, details: this.details };
  }
}
