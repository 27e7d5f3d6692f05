/**
 * The system error code of a failed connection (`ECONNREFUSED`, `ECONNRESET` …) found on the error
 * or down its `cause` chain (at most 8 deep), or `undefined`.
 */
export function networkErrorCode(error: unknown): string | undefined {
  for (
    let current: unknown = error, depth = 0;
    current !== null && current !== undefined && depth < 8;
    current = (current as { cause?: unknown }).cause, depth++
  ) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string' && /^E[A-Z]+$/.test(code)) return code;
  }
  return undefined;
}
