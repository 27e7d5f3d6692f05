import type { ITokenCounter } from '@ctxkit/core';

import type { TranscriptRecord } from './transcript-record';

/** Standard context sizes of local and hosted models. */
export const STANDARD_WINDOWS = [4096, 8192, 16384, 32768, 65536, 131072] as const;

/**
 * A window that makes strategies matter on these conversations: the smallest standard size at
 * least 2.5 times what system prompt and tool definitions take (the parts no strategy may drop).
 */
export function autoWindow(records: readonly TranscriptRecord[], counter: ITokenCounter): number {
  let fixed = 0;
  for (const record of records) {
    fixed = Math.max(fixed, counter.countMessage(record.messages[0]!) + counter.countTools(record.tools ?? []));
  }
  const wanted = fixed * 2.5;
  return STANDARD_WINDOWS.find((size) => size >= wanted) ?? STANDARD_WINDOWS[STANDARD_WINDOWS.length - 1]!;
}
