import { type ChatMessage } from '@ctxkit/core';
import { contentText } from '@ctxkit/core/strategy-kit';

/** Items a summary must carry verbatim, each with what kind it is. */
export interface RetainedItem {
  text: string;
  kind: 'retain' | 'id' | 'date' | 'url' | 'path' | 'code' | 'number';
}

/** At most this many items are required of one fold, the first ones met (most are met early). @default 40 */
export const MAX_RETAINED_ITEMS = 40;

const PATTERNS: ReadonlyArray<{ kind: RetainedItem['kind']; pattern: RegExp }> = [
  { kind: 'url', pattern: /\bhttps?:\/\/[^\s<>"'`)\]]+[^\s<>"'`)\].,;:!?]/g },
  { kind: 'date', pattern: /\b\d{4}-\d{2}-\d{2}\b/g },
  // reference codes and ids: letters and digits mixed, at least 5 characters (4WQ150, HAT039, user_ids with digits)
  { kind: 'id', pattern: /\b(?=[A-Za-z0-9_-]*\d)(?=[A-Za-z0-9_-]*[A-Za-z])[A-Za-z0-9][A-Za-z0-9_-]{4,}\b/g },
  { kind: 'path', pattern: /(?:^|[\s(`'"])((?:\.{0,2}\/)?(?:[\w.-]+\/)+[\w.-]+\.\w{1,8})\b/g },
  { kind: 'code', pattern: /`([^`\n]{2,80})`/g },
  // amounts and numbers of three digits or more (prices, counts, line numbers)
  { kind: 'number', pattern: /(?<![\w.])\d{3,}(?:[.,]\d+)*(?![\w])/g },
];

/**
 * What the user and the assistant said in the folded turns that a summary must keep verbatim:
 * everything inside `<retain>…</retain>`, then ids, dates, URLs, file paths, code spans and
 * numbers of three digits or more, in order of appearance, each once, at most
 * {@link MAX_RETAINED_ITEMS}. Tool outputs are left out: a summary keeps what the conversation used
 * of them, and they stay recoverable from the history.
 */
export function retainedItems(messages: ReadonlyArray<Readonly<ChatMessage>>): RetainedItem[] {
  return itemsOf(messages, ['user', 'assistant'], MAX_RETAINED_ITEMS);
}

/** At most this many dropped items are listed in a receipt. */
export const MAX_LISTED_DROPPED_ITEMS = 40;

/**
 * The items of the folded turns (tool outputs included, no cap on what is looked at) that a summary
 * does not carry and was not required to: past the {@link MAX_RETAINED_ITEMS} required ones, or in tool
 * outputs. They stay recoverable from the history. At most {@link MAX_LISTED_DROPPED_ITEMS}, in order of appearance.
 */
export function droppedItems(summary: string, messages: ReadonlyArray<Readonly<ChatMessage>>): RetainedItem[] {
  return itemsOf(messages, ['user', 'assistant', 'tool'], Infinity)
    .filter((item) => !summary.includes(item.text))
    .slice(0, MAX_LISTED_DROPPED_ITEMS);
}

function itemsOf(
  messages: ReadonlyArray<Readonly<ChatMessage>>,
  roles: ReadonlyArray<ChatMessage['role']>,
  limit: number,
): RetainedItem[] {
  return itemsInTexts(
    messages.filter((message) => roles.includes(message.role)).map((message) => contentText(message.content)),
    limit,
  );
}

/**
 * The `<retain>` texts, then the ids, dates, URLs, paths, code spans and numbers of three digits or
 * more of `texts`, in order of appearance, each once, at most `limit`.
 */
export function itemsInTexts(texts: readonly string[], limit: number): RetainedItem[] {
  const seen = new Set<string>();
  const items: RetainedItem[] = [];
  const add = (text: string, kind: RetainedItem['kind']) => {
    const trimmed = text.trim();
    if (trimmed === '' || seen.has(trimmed) || items.length >= limit) return;
    seen.add(trimmed);
    items.push({ text: trimmed, kind });
  };
  for (const text of texts)
    for (const match of text.matchAll(/<retain>([\s\S]*?)<\/retain>/g)) add(match[1]!, 'retain');
  for (const text of texts) {
    for (const { kind, pattern } of PATTERNS)
      for (const match of text.matchAll(pattern)) add(match[1] ?? match[0], kind);
  }
  return items;
}

/** The items of `required` that `summary` does not contain verbatim. */
export function missingItems(summary: string, required: readonly RetainedItem[]): RetainedItem[] {
  return required.filter((item) => !summary.includes(item.text));
}
