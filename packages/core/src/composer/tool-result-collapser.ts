import type { AssistantMessage, ChatMessage, ToolCall, ToolMessage } from '../contracts/chat-message';
import type { ReductionRecord } from '../contracts/llm-payload';
import { oneLineToolSummary } from '../outline/one-line-tool-summary';
import type { HistoryRange } from './kept-history';

/** The history a strategy is given under mode A, and what was collapsed. */
export interface CollapsedHistory {
  /** Same length and order as the history: its message objects, with older tool results replaced by copies. */
  history: ChatMessage[];
  /** One `trimmed` record per collapsed result (history indexes), recoverable from the caller's history. */
  reductions: ReductionRecord[];
  /** Number of results shown as one-line summaries. */
  collapsed: number;
}

/** Text of a tool message's content. */
export function toolContentText(message: Readonly<ToolMessage>): string {
  return typeof message.content === 'string' ? message.content : message.content.map((part) => part.text).join('');
}

/**
 * The one-line form of a collapsed tool result, e.g. `[Read: main.go (500 lines, Go) — collapsed; call the tool again
 * to see it]`.
 */
export function collapsedToolResult(call: Readonly<ToolCall> | undefined, content: string): string {
  const summary = oneLineToolSummary({
    toolName: call?.function.name ?? 'tool',
    arguments: call?.function.arguments ?? '{}',
    content,
  });
  return `[${summary} — collapsed; call the tool again to see it]`;
}

/**
 * Small-window history compression: every tool result older than the last step's collapses to a one-line summary such
 * as `Read: main.go (500 lines, Go)`; only the results of the newest assistant `tool_calls` message stay in full. The
 * model calls the tool again when it needs an older result.
 *
 * The payload composer applies this view when asked to (`collapseOlderToolResults`); the caller's
 * history keeps the full results, so nothing is lost. Copies are remembered per original message, so one result
 * collapses to the same object on every call (strategies that cache by identity keep their caches).
 */
export class ToolResultCollapser {
  private readonly copies = new WeakMap<object, ToolMessage>();
  /**
   * The last view's decision by position: the message there, and its copy (`null`: left whole). A
   * message still at its place is decided without reading it again: the kernel freezes its messages,
   * and reading frozen messages of many shapes took about twenty times as long as unfrozen ones (1 ms
   * for 10,000 in a view, against 0.08 ms).
   */
  private readonly placed: Array<Readonly<ChatMessage> | undefined> = [];
  private readonly forms: Array<ToolMessage | null> = [];

  /** The mode A view of `history`; the input is not mutated. */
  collapse(history: ReadonlyArray<ChatMessage>): CollapsedHistory {
    const { history: view, collapsedAt } = this.view(history);
    const reductions = collapsedAt.map(collapsedRecord);
    return { history: view, reductions, collapsed: reductions.length };
  }

  /**
   * The mode A view of `history` and the indexes of the results it collapsed, in order (what
   * {@link collapse} reports, without a record for each). A result collapsed on an earlier call is
   * looked up, not summarised again; a result is summarised under the call it answers.
   */
  view(history: ReadonlyArray<ChatMessage>): { history: ChatMessage[]; collapsedAt: number[] } {
    let lastCalls = history.length - 1;
    while (lastCalls >= 0 && !hasToolCalls(history[lastCalls]!)) lastCalls--;
    const view = history.slice();
    const collapsedAt: number[] = [];
    const { placed, forms } = this;
    const decided = Math.max(lastCalls, 0);
    for (let index = 0; index < decided; index++) {
      const message = history[index]!;
      let copy: ToolMessage | null;
      if (placed[index] === message) copy = forms[index]!;
      else {
        copy = this.copyOf(history, index);
        placed[index] = message;
        forms[index] = copy;
      }
      if (copy === null) continue;
      view[index] = copy;
      collapsedAt.push(index);
    }
    // Positions past the last call decided are forgotten (a shorter history does not keep the old messages).
    placed.length = Math.min(placed.length, decided);
    forms.length = placed.length;
    return { history: view, collapsedAt };
  }

  /** The collapsed copy of `history[index]`, or `null` when it stays whole (not a result, a ref, or short). */
  private copyOf(history: ReadonlyArray<ChatMessage>, index: number): ToolMessage | null {
    const message = history[index]!;
    if (message.role !== 'tool' || message.output_ref) return null;
    let copy = this.copies.get(message);
    if (!copy) {
      const content = toolContentText(message);
      const short = collapsedToolResult(callAnswered(history, index), content);
      if (short.length >= content.length) return null;
      copy = { role: 'tool', tool_call_id: message.tool_call_id, content: short };
      this.copies.set(message, copy);
    }
    return copy;
  }
}

/**
 * Which of the collapsed results (`collapsedAt`, history indexes in order) a window sends: those
 * whose very object it holds (a truncated copy is not the collapsed result). The window's messages
 * are its kept ranges' (`kept`, in order) one for one, so each result is compared with the message
 * at its place in the window; thousands of frozen messages are not hashed into a set (the kernel's
 * are frozen, and V8 hashes a frozen object several times slower). A window that is not one for one
 * with its ranges is searched by identity.
 */
export function collapsedInWindow(
  collapsedAt: ReadonlyArray<number>,
  history: ReadonlyArray<ChatMessage>,
  windowMessages: ReadonlyArray<ChatMessage>,
  kept: ReadonlyArray<HistoryRange>,
): number[] {
  let keptMessages = 0;
  for (const range of kept) keptMessages += range.to - range.from;
  if (keptMessages !== windowMessages.length) {
    const held = new Set<ChatMessage>(windowMessages);
    return collapsedAt.filter((index) => held.has(history[index]!));
  }
  const sent: number[] = [];
  let range = 0;
  let offset = 0;
  for (const index of collapsedAt) {
    while (range < kept.length && kept[range]!.to <= index) {
      offset += kept[range]!.to - kept[range]!.from;
      range++;
    }
    if (range === kept.length) break;
    const { from } = kept[range]!;
    if (index >= from && windowMessages[offset + index - from] === history[index]) sent.push(index);
  }
  return sent;
}

/** The record of the result collapsed at history index `index`. */
export function collapsedRecord(index: number): ReductionRecord {
  return {
    action: 'trimmed',
    from: index,
    to: index + 1,
    messages: 1,
    reason: 'small context: an older tool result collapsed to a one-line summary',
    recoverableFrom: 'history',
    cause: 'collapsed',
  };
}

function hasToolCalls(message: Readonly<ChatMessage>): message is AssistantMessage & { tool_calls: ToolCall[] } {
  return message.role === 'assistant' && message.tool_calls !== undefined && message.tool_calls.length > 0;
}

/**
 * The call the tool result at `index` answers: results pair with the calls of the assistant message
 * right before their run of tool messages, in order, by id (so an id that repeats across a history,
 * as servers that number each reply's calls from `call_0` make them, or within one message, resolves
 * to the right call). `undefined` when no call matches, or when the run reaches `from` (where the
 * messages looked at start) without an assistant message. Costs O(the run).
 */
export function callAnswered(messages: ReadonlyArray<ChatMessage>, index: number, from = 0): ToolCall | undefined {
  let start = index;
  while (start > from && messages[start - 1]!.role === 'tool') start--;
  const owner = start > from ? messages[start - 1]! : undefined;
  if (owner === undefined || !hasToolCalls(owner)) return undefined;
  const pending = owner.tool_calls.slice();
  let call: ToolCall | undefined;
  for (let position = start; position <= index; position++) {
    const message = messages[position]!;
    if (message.role !== 'tool') return undefined;
    const at = pending.findIndex((candidate) => candidate.id === message.tool_call_id);
    call = at === -1 ? undefined : pending.splice(at, 1)[0];
  }
  return call;
}
