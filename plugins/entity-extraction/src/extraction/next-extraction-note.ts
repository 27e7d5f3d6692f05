import type { ChatMessage } from '@ctxkit/core';

import { buildExtractionInput } from './extraction-input';
import type { StateExtractor } from './state-extractor';

/**
 * The preview's note on the extraction the next compose runs first: which messages after `resume`
 * it would read and with which extractor, or why there is none.
 */
export function nextExtractionNote(
  history: ReadonlyArray<Readonly<ChatMessage>>,
  resume: number,
  extractor: StateExtractor,
): string {
  const input = buildExtractionInput(history, resume, extractor.trigger);
  if (!input) {
    const what = extractor.trigger === 'user-messages' ? 'user message' : 'user message or tool result';
    return (
      `no extraction before the next payload: ` +
      `no ${what} ${resume < 0 ? 'in the history' : `after message ${resume}`}`
    );
  }
  const read =
    `${input.userMessages.length} user ` +
    `message${input.userMessages.length === 1 ? '' : 's'}, ${input.toolResults.length} tool ` +
    `result${input.toolResults.length === 1 ? '' : 's'}`;
  const range =
    resume + 1 === input.sourceMessageIndex
      ? `message ${input.sourceMessageIndex}`
      : `messages ${resume + 1}–${input.sourceMessageIndex}`;
  return (
    `the next compose first extracts from ${range} (${read}) with ${extractor.name}; the state block it sends ` +
    `may then differ from this preview's`
  );
}
