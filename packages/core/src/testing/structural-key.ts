/**
 * A canonical text of a JSON-like value: object keys sorted, `undefined` properties kept (as
 * `undefined`), so that two values have the same key exactly when they are structurally equal.
 * Used for snapshots (was the input mutated?) and to find which history messages reach a payload
 * unaltered. Cycles are reported as `[cycle]`.
 */
export function structuralKey(value: unknown): string {
  const parts: string[] = [];
  const path = new Set<object>();
  const visit = (current: unknown): void => {
    if (current === undefined) {
      parts.push('undefined');
      return;
    }
    if (current === null || typeof current !== 'object') {
      if (typeof current === 'bigint') parts.push(`${current.toString()}n`);
      else if (typeof current === 'function' || typeof current === 'symbol') parts.push(`[${typeof current}]`);
      else if (typeof current === 'number' && !Number.isFinite(current)) parts.push(String(current));
      else parts.push(JSON.stringify(current));
      return;
    }
    if (path.has(current)) {
      parts.push('[cycle]');
      return;
    }
    path.add(current);
    if (Array.isArray(current)) {
      parts.push('[');
      current.forEach((item, index) => {
        if (index > 0) parts.push(',');
        visit(item);
      });
      parts.push(']');
    } else if (ArrayBuffer.isView(current)) {
      parts.push(
        `bytes(${Array.from(new Uint8Array(current.buffer, current.byteOffset, current.byteLength)).join(' ')})`,
      );
    } else {
      parts.push('{');
      const keys = Object.keys(current).sort();
      keys.forEach((key, index) => {
        if (index > 0) parts.push(',');
        parts.push(JSON.stringify(key), ':');
        visit((current as Record<string, unknown>)[key]);
      });
      parts.push('}');
    }
    path.delete(current);
  };
  visit(value);
  return parts.join('');
}
