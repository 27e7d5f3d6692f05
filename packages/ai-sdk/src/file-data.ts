import type { FilePart, TextPart } from 'ai';

/**
 * The data of AI SDK image and file parts in every form it comes in (bytes, base64, URL, URL string,
 * the tagged `{ type: 'data' | 'url' | 'reference' | 'text' }` shapes), as ctxkit image URLs and as
 * JSON-safe values, and back. Realm-independent checks: the AI SDK and the caller may hold
 * different copies of `Uint8Array` and `URL`.
 */

function tagOf(value: unknown): string {
  return Object.prototype.toString.call(value);
}

/** True for raw bytes: a `Uint8Array` (or `Buffer`), another typed array view, or an `ArrayBuffer`. */
export function isBytes(value: unknown): value is ArrayBufferView | ArrayBuffer {
  return ArrayBuffer.isView(value) || tagOf(value) === '[object ArrayBuffer]';
}

/** True for a WHATWG `URL` object. */
export function isUrlObject(value: unknown): value is URL {
  return (
    typeof value === 'object' &&
    value !== null &&
    tagOf(value) === '[object URL]' &&
    typeof (value as URL).href === 'string'
  );
}

/** Base64 of raw bytes. */
export function base64Of(bytes: ArrayBufferView | ArrayBuffer): string {
  const view = ArrayBuffer.isView(bytes)
    ? Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength)
    : Buffer.from(bytes);
  return view.toString('base64');
}

/** True when a string is a URL the AI SDK would fetch or inline (`http:`, `https:`, `data:`), not base64. */
export function isUrlString(value: string): boolean {
  return /^(https?:|data:)/i.test(value);
}

/** A full media type for a data URL (`image` alone becomes `image/*`). */
function dataUrlMediaType(mediaType: string | undefined, fallback: string): string {
  if (!mediaType) return fallback;
  return mediaType.includes('/') ? mediaType : `${mediaType}/*`;
}

/** True when a media type names an image (`image`, `image/png`, `image/*`). */
export function isImageMediaType(mediaType: string | undefined): boolean {
  return mediaType === undefined || /^image(\/|$)/i.test(mediaType);
}

/**
 * The URL ctxkit shows for an image: the URL itself, or a `data:` URL of the bytes. `undefined` for
 * data that is not an image ctxkit can show (a provider reference, inline text).
 */
export function imageUrlOf(data: unknown, mediaType: string | undefined): string | undefined {
  if (isUrlObject(data)) return data.href;
  if (isBytes(data)) return `data:${dataUrlMediaType(mediaType, 'image/*')};base64,${base64Of(data)}`;
  if (typeof data === 'string')
    return isUrlString(data) ? data : `data:${dataUrlMediaType(mediaType, 'image/*')};base64,${data}`;
  if (typeof data === 'object' && data !== null) {
    const tagged = data as { type?: unknown; data?: unknown; url?: unknown };
    if (tagged.type === 'data') return imageUrlOf(tagged.data, mediaType);
    if (tagged.type === 'url')
      return isUrlObject(tagged.url) ? tagged.url.href : typeof tagged.url === 'string' ? tagged.url : undefined;
  }
  return undefined;
}

const DATA_URL = /^data:([^;,]*)((?:;[^;,]*)*),/i;

/**
 * The AI SDK part for an image URL ctxkit holds: a `data:` URL becomes a file part with its base64
 * data and media type, any other URL a file part pointing to it. An unparsable URL is kept as text.
 */
export function partOfImageUrl(url: string, detail: 'auto' | 'low' | 'high' | undefined): FilePart | TextPart {
  const providerOptions = detail === undefined ? undefined : { openai: { imageDetail: detail } };
  const header = DATA_URL.exec(url);
  if (header) {
    const mediaType = header[1] && header[1] !== 'image/*' ? header[1] : 'image';
    const payload = url.slice(header[0].length);
    const base64 = /;base64/i.test(header[2] ?? '')
      ? payload
      : Buffer.from(decodeURIComponent(payload), 'utf8').toString('base64');
    return {
      type: 'file',
      mediaType,
      data: { type: 'data', data: base64 },
      ...(providerOptions ? { providerOptions } : {}),
    };
  }
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return { type: 'text', text: url };
  }
  return {
    type: 'file',
    mediaType: 'image',
    data: { type: 'url', url: parsed },
    ...(providerOptions ? { providerOptions } : {}),
  };
}

/** File data with bytes as base64 and URLs as strings (`{ type: 'url', url: string }`), so that it survives JSON. */
export function jsonSafeData(data: unknown): unknown {
  if (isBytes(data)) return { type: 'data', data: base64Of(data) };
  if (isUrlObject(data)) return { type: 'url', url: data.href };
  if (typeof data === 'object' && data !== null) {
    const tagged = data as { type?: unknown; data?: unknown; url?: unknown };
    if (tagged.type === 'data' && isBytes(tagged.data)) return { ...tagged, data: base64Of(tagged.data) };
    if (tagged.type === 'url' && isUrlObject(tagged.url)) return { ...tagged, url: tagged.url.href };
  }
  return data;
}

/** The inverse of {@link jsonSafeData} for URLs: `{ type: 'url', url: string }` gets its `URL` object back. */
export function restoredData(data: unknown): unknown {
  if (typeof data === 'object' && data !== null) {
    const tagged = data as { type?: unknown; url?: unknown };
    if (tagged.type === 'url' && typeof tagged.url === 'string') {
      try {
        return { ...tagged, url: new URL(tagged.url) };
      } catch {
        return data;
      }
    }
  }
  return data;
}
