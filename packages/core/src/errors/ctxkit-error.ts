import type { ErrorCode } from './error-codes';

/** Who is to blame, so that callers know whom to tell. */
export type ErrorCategory = 'user' | 'plugin' | 'provider' | 'internal';

const MARKER = Symbol.for('ctxkit.error');

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
  private readonly [MARKER] = true;

  constructor(options: CtxkitErrorOptions) {
    super(options.fix ? `${options.message} Fix: ${options.fix}` : options.message, { cause: options.cause });
    this.name = new.target.name;
    this.code = options.code;
    this.category = options.category;
    this.details = options.details ?? {};
    this.fix = options.fix;
  }

  /** True for any ctxkit error, from any copy of `@ctxkit/core`. */
  static isInstance(error: unknown): error is CtxkitError {
    return typeof error === 'object' && error !== null && (error as Record<symbol, unknown>)[MARKER] === true;
  }

  toJSON(): Record<string, unknown> {
    return { name: this.name, code: this.code, category: this.category, message: this.message, details: this.details };
  }
}
