/** A header read from a `Headers`-like object (`get`) or a plain record, whatever the key's case. */
function headerOf(headers: unknown, name: string): string | undefined {
  if (headers === null || typeof headers !== 'object') return undefined;
  if (typeof (headers as { get?: unknown }).get === 'function')
    return (headers as { get(name: string): string | null }).get(name) ?? undefined;
  for (const [key, value] of Object.entries(headers as Record<string, unknown>))
    if (key.toLowerCase() === name && typeof value === 'string') return value;
  return undefined;
}

/**
 * The wait, in milliseconds, a provider's answer asked for before a retry: `retry-after-ms`, else
 * `retry-after` in seconds or as an HTTP date; `undefined` when it asked for none. `headers` is a
 * `Headers`-like object or a plain record (any key case).
 */
export function retryAfterMs(headers: unknown): number | undefined {
  const ms = Number.parseFloat(headerOf(headers, 'retry-after-ms') ?? '');
  if (Number.isFinite(ms)) return Math.max(0, ms);
  const value = headerOf(headers, 'retry-after');
  if (value === undefined || value.trim() === '') return undefined;
  const seconds = Number(value);
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - Date.now());
}
