/** A store-safe session id for a transcript record id (`tau-bench/airline/task-0` → `tau-bench.airline.task-0`). */
export function sessionIdFor(recordId: string): string {
  const safe = recordId
    .replace(/[^A-Za-z0-9._:@-]+/g, '.')
    .replace(/^\.+/, '')
    .slice(0, 180);
  return safe || 'conversation';
}
