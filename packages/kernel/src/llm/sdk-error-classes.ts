/** An HTTP error of an official SDK: the status and headers of the answer, and its parsed body. */
export interface SdkApiError extends Error {
  readonly status: number | undefined;
  readonly headers: { get(name: string): string | null } | undefined;
  readonly error: unknown;
}

/**
 * The error classes an official SDK client throws, by the names the OpenAI and Anthropic SDKs both
 * export them under. Every one of them extends `APIError`; the status subclasses
 * (`BadRequestError` 400, `AuthenticationError` 401, `PermissionDeniedError` 403,
 * `NotFoundError` 404, `ConflictError` 409, `UnprocessableEntityError` 422, `RateLimitError` 429,
 * `InternalServerError` 5xx) are told apart by their `status`.
 */
export interface SdkErrorClasses {
  readonly APIError: abstract new (...args: never[]) => SdkApiError;
  /** The caller's signal aborted the request. */
  readonly APIUserAbortError: abstract new (...args: never[]) => Error;
  /** No connection, or the connection failed before an answer arrived. */
  readonly APIConnectionError: abstract new (...args: never[]) => Error;
  /** An attempt got no answer within the timeout (a subclass of `APIConnectionError`). */
  readonly APIConnectionTimeoutError: abstract new (...args: never[]) => Error;
}
