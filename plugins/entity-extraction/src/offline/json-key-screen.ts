/**
 * Tells, without parsing, whether a JSON text can hold a member under one of some keys: a key is
 * written quoted (`"flight_number"`) unless the writer escaped some of its characters (`\u0066...`),
 * and a top-level value counts as under its root key. So a text that has neither a quoted key nor a
 * backslash, with a root key that is not one of them, holds none of them.
 */
export class JsonKeyScreen {
  private readonly keys: ReadonlySet<string>;
  private readonly quotedKeys: readonly string[];

  constructor(keys: Iterable<string>) {
    this.keys = new Set(keys);
    this.quotedKeys = [...this.keys].map((key) => JSON.stringify(key));
  }

  /** False when `json` (with its top-level value under `rootKey`) holds no member under the keys. */
  mayHold(json: string, rootKey: string | null): boolean {
    if (rootKey !== null && this.keys.has(rootKey)) return true;
    if (json.includes('\\')) return true;
    return this.quotedKeys.some((quoted) => json.includes(quoted));
  }
}
