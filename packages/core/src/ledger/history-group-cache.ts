import type { ChatMessage } from '../contracts/chat-message';
import { groupEndingAt } from '../messages/group-tool-calls';
import type { MessageGroup } from '../messages/message-group';

/** A group found once, with the messages it was found on and, once known, its exact tokens. */
interface CachedGroup {
  group: MessageGroup;
  /** First history index the search read. */
  from: number;
  /** `history[from, end)` as it was: the entry holds while these are the same objects. */
  messages: ReadonlyArray<Readonly<ChatMessage>>;
  /** Exact tokens of `history[group.start, group.end)`, or -1 while unknown. */
  tokens: number;
}

/** A group ending at a position and its exact tokens (-1 when not known yet). */
export interface KnownGroup {
  group: MessageGroup;
  tokens: number;
}

/**
 * The tool-call group ending at each position of one conversation's history, remembered across
 * turns: a walk back over a history that only grew finds each older group (and its tokens) without
 * searching or counting again. An entry holds while the messages it was found on are the same
 * objects and the message at its end is not a tool result (a tool result there could extend the
 * group); otherwise the group is searched again, as {@link groupEndingAt} does.
 */
export class HistoryGroupCache {
  private entries: Array<CachedGroup | undefined> = [];

  /** The group ending at `end` (exclusive), as {@link groupEndingAt} finds it, with its tokens when known. */
  groupEndingAt(history: ReadonlyArray<Readonly<ChatMessage>>, end: number): KnownGroup {
    const cacheable = end < history.length && history[end]!.role !== 'tool';
    const entry = this.entries[end];
    if (cacheable && entry !== undefined && sameMessages(history, entry)) return entry;
    const group = groupEndingAt(history, end);
    if (!cacheable) return { group, tokens: -1 };
    const from = searchStart(history, end);
    const fresh: CachedGroup = { group, from, messages: history.slice(from, end), tokens: -1 };
    this.entries[end] = fresh;
    return fresh;
  }

  /** Records the exact tokens of a group this cache returned (kept with it while it holds). */
  rememberTokens(known: KnownGroup, tokens: number): void {
    known.tokens = tokens;
  }

  /** Forgets every group (a history that is not the previous one). */
  clear(): void {
    this.entries = [];
  }
}

/** Where {@link groupEndingAt} starts reading for the group ending at `end`. */
function searchStart(history: ReadonlyArray<Readonly<ChatMessage>>, end: number): number {
  if (history[end - 1]!.role !== 'tool') return end - 1;
  let start = end - 1;
  while (start > 0 && history[start - 1]!.role === 'tool') start--;
  return Math.max(0, start - 1);
}

function sameMessages(history: ReadonlyArray<Readonly<ChatMessage>>, entry: CachedGroup): boolean {
  const { from, messages } = entry;
  for (let offset = messages.length - 1; offset >= 0; offset--) {
    if (history[from + offset] !== messages[offset]) return false;
  }
  return true;
}
