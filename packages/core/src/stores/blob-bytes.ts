const encoder = new TextEncoder();

/**
 * The bytes a store keeps for blob data: a string as UTF-8, a `Uint8Array` copied (the caller may
 * reuse its buffer afterwards).
 */
export function toBlobBytes(data: string | Uint8Array): Uint8Array {
  if (typeof data === 'string') return encoder.encode(data);
  if (data instanceof Uint8Array) return new Uint8Array(data);
  throw new TypeError('blob data must be a string or a Uint8Array');
}
