import {
  BudgetExceededError,
  type ChatMessage,
  createTokenUsage,
  hasCompactionHooks,
  type IContextManager,
  type ITokenCounter,
  type LLMPayload,
  type ReductionRecord,
  type ToolMessage,
} from '@ctxkit/core';
import {
  callAnswered,
  collapsedToolResult,
  contentText,
  toolContentText,
  truncateToFit,
} from '@ctxkit/core/strategy-kit';

import { MIN_TOOL_OUTPUT_TOKENS } from './truncate-tool-result';

/**
 * The escalation of the pre-send check, in order (`drop-oldest-turns` only when retrying after a provider's refusal for
 * length).
 */
export type PreSendStep =
  'trim-old-tool-results' | 'compact-history' | 'truncate-tool-results' | 'drop-oldest-turns' | 'error';

/** One step the check took. */
export interface PreSendStepReport {
  step: PreSendStep;
  tokensBefore: number;
  tokensAfter: number;
  /** Messages the step changed (tool results trimmed or truncated; the compacted history's length). */
  messages: number;
}

/** What the pre-send check found and did before one model call. */
export interface PreSendReport {
  /** The model call it guarded (0-based, within the run). */
  call: number;
  /** The line the payload must stay under: the 90% line of the window less the answer's reservation. */
  limit: number;
  tokensBefore: number;
  tokensAfter: number;
  /** True when the cheap check, as tool results were added, had flagged the budget. */
  flagged: boolean;
  steps: PreSendStepReport[];
}

/** What {@link preSendCheck} needs. */
export interface PreSendCheckInput {
  payload: LLMPayload;
  /**
   * Tokens of `payload` (messages + tool definitions) by `counter`, when the caller has counted them
   * already (the kernel counts each session's payloads incrementally). @default counted here
   */
  tokens?: number;
  /** The run's history (history indexes of reductions refer to it). */
  history: readonly ChatMessage[];
  manager: IContextManager;
  counter: ITokenCounter;
  limit: number;
  /** The window (ceiling) the limit belongs to: compaction is asked with usage at this size. */
  contextWindow: number;
  strategyId: string;
  call: number;
  flagged: boolean;
  /** Composes again from a compacted history (step 2). */
  recompose(history: ChatMessage[]): Promise<LLMPayload>;
  /** Called after each step (the loop emits `budget-escalation`). */
  onStep?(step: PreSendStepReport): void;
  /**
   * Before refusing, leave the oldest whole turns out of the payload (system messages, memory blocks
   * sent as user messages before the history, and the newest turn always stay). The kernel asks for it only to retry a
   * request the provider refused as too long for the model. @default false
   */
  dropOldestTurns?: boolean;
}

/** What {@link preSendCheck} returns: the payload to send and, when compaction happened, the new history. */
export interface PreSendResult {
  payload: LLMPayload;
  report: PreSendReport;
  /** Reductions the check made on the payload (history indexes). */
  reductions: ReductionRecord[];
  /** The compacted history, when step 2 compacted. */
  compactedHistory?: ChatMessage[];
}

function payloadTokens(payload: LLMPayload, counter: ITokenCounter): number {
  return counter.countMessages(payload.messages) + counter.countTools(payload.tools);
}

/** Where the newest assistant message with tool calls is (its results stay in full), -1 when none. */
function lastCallsIndex(messages: readonly ChatMessage[]): number {
  for (let index = messages.length - 1; index >= 0; index--) {
    const message = messages[index]!;
    if (message.role === 'assistant' && message.tool_calls?.length) return index;
  }
  return -1;
}

/**
 * Where the payload's tool result at `index` is in the history: the history's own message (a
 * strategy sends its objects), else the result with its id among those right after the history's
 * copy of the assistant message its run of results answers, else the newest result with its id. Call
 * ids may repeat across a history (servers that number each reply's calls from `call_0`), so the id
 * alone is the last resort. `positions`: each history message's index.
 */
function historyPositionOf(
  history: readonly ChatMessage[],
  positions: ReadonlyMap<ChatMessage, number>,
  messages: readonly ChatMessage[],
  index: number,
): number {
  const message = messages[index] as ToolMessage;
  const own = positions.get(message);
  if (own !== undefined) return own;
  let start = index;
  while (start > 0 && messages[start - 1]!.role === 'tool') start--;
  const caller = start > 0 ? positions.get(messages[start - 1]!) : undefined;
  for (let position = (caller ?? history.length) + 1; position < history.length; position++) {
    const result = history[position]!;
    if (result.role !== 'tool') break;
    if (result.tool_call_id === message.tool_call_id) return position;
  }
  for (let position = history.length - 1; position >= 0; position--) {
    const result = history[position]!;
    if (result.role === 'tool' && result.tool_call_id === message.tool_call_id) return position;
  }
  return -1;
}

function reduction(
  position: number,
  action: ReductionRecord['action'],
  tokensBefore: number,
  tokensAfter: number,
  reason: string,
): ReductionRecord | undefined {
  if (position < 0) return undefined;
  return {
    action,
    from: position,
    to: position + 1,
    messages: 1,
    tokensBefore,
    tokensAfter,
    reason,
    recoverableFrom: 'history',
  };
}

/**
 * How many messages the payload starts with that are not the conversation's: its system messages,
 * then the memory blocks a strategy sends as user messages before the history (a summary, an entity
 * state, pinned content), user messages that are not the history's (by identity or text). Never past
 * `newest`.
 */
function leadingMemory(messages: readonly ChatMessage[], history: readonly ChatMessage[], newest: number): number {
  const own = new Set<unknown>(history);
  const texts = new Set(
    history.filter((message) => message.role === 'user').map((message) => contentText(message.content)),
  );
  let lead = 0;
  while (lead < newest) {
    const message = messages[lead]!;
    if (
      message.role !== 'system' &&
      (message.role !== 'user' || own.has(message) || texts.has(contentText(message.content)))
    )
      break;
    lead++;
  }
  return lead;
}

/**
 * Leaves whole turns out of a payload, oldest first, until about `excess` tokens are gone: a turn is a
 * user message and what follows it up to the next one (so tool calls keep their results). System
 * messages (the prompt, a summary, an entity state), memory blocks sent as user messages before the
 * history and the newest turn always stay.
 */
function dropOldestTurns(
  messages: readonly ChatMessage[],
  history: readonly ChatMessage[],
  counter: ITokenCounter,
  excess: number,
): { messages: ChatMessage[]; dropped: number; reductions: ReductionRecord[] } {
  const users: number[] = [];
  messages.forEach((message, index) => {
    if (message.role === 'user') users.push(index);
  });
  const newest = users[users.length - 1];
  if (newest === undefined) return { messages: messages.slice(), dropped: 0, reductions: [] };
  const firstOther = leadingMemory(messages, history, newest);
  const starts = users.filter((index) => index >= firstOther);
  // The chunks that may go, oldest first: what precedes the first user message, then each older turn.
  const bounds = [...new Set([firstOther, ...starts])]
    .filter((index) => index >= 0 && index <= newest)
    .sort((a, b) => a - b);
  const gone = new Set<number>();
  let freed = 0;
  for (let chunk = 0; chunk + 1 < bounds.length && freed < excess; chunk++) {
    for (let index = bounds[chunk]!; index < bounds[chunk + 1]!; index++) {
      const message = messages[index]!;
      if (message.role === 'system') continue;
      gone.add(index);
      freed += counter.countMessage(message);
    }
  }
  if (gone.size === 0) return { messages: messages.slice(), dropped: 0, reductions: [] };
  const historyIndex = new Map<ChatMessage, number>();
  history.forEach((message, index) => historyIndex.set(message, index));
  const reductions: ReductionRecord[] = [];
  for (const index of gone) {
    const at = historyIndex.get(messages[index]!);
    if (at === undefined) continue;
    const last = reductions[reductions.length - 1];
    if (last && last.to === at) {
      last.to++;
      last.messages++;
    } else {
      reductions.push({
        action: 'dropped',
        from: at,
        to: at + 1,
        messages: 1,
        tokensAfter: 0,
        reason: 'left out to retry a request the provider refused as too long',
        recoverableFrom: 'history',
      });
    }
  }
  return { messages: messages.filter((_, index) => !gone.has(index)), dropped: gone.size, reductions };
}

/**
 * The pre-send check, run before every model call on the payload the strategy composed. When
 * the payload (messages + tool definitions, by the agent's counter) is over `limit` (the 90% line of
 * the window, less the answer's reservation), it escalates, stopping as soon as the payload fits:
 *
 * 1. trim old tool results: every result older than the newest step's becomes a one-line summary, oldest first;
 * 2. compact history: when the strategy has `checkCompaction`, it is asked with usage at the window's
 *    size (so a threshold strategy decides to compact); the payload is composed again from the result;
 * 3. force-truncate tool results, largest first, head + tail, down to {@link MIN_TOOL_OUTPUT_TOKENS} each;
 *    then, only with `dropOldestTurns` (a retry after the provider refused the request for length),
 *    leave the oldest whole turns out of the payload;
 * 4. refuse with `BudgetExceededError`, saying what did not fit, rather than send an overflowing request.
 *
 * It works on the payload only: tool message contents change (pairs stay whole), and the history
 * keeps the full results. Results the strategy already sends as one-line summaries (mode A) are kept
 * as they are. It is the last resort; mode A, requested from the strategy, usually makes it unneeded.
 * @throws BudgetExceededError (`CTXKIT_BUDGET_EXCEEDED`) when even step 3 cannot fit the payload
 */
export async function preSendCheck(input: PreSendCheckInput): Promise<PreSendResult> {
  const { counter, limit } = input;
  let payload = input.payload;
  const reductions: ReductionRecord[] = [];
  const before = input.tokens ?? payloadTokens(payload, counter);
  const report: PreSendReport = {
    call: input.call,
    limit,
    tokensBefore: before,
    tokensAfter: before,
    flagged: input.flagged,
    steps: [],
  };
  let history = input.history;
  let compactedHistory: ChatMessage[] | undefined;
  let total = before;
  const record = (step: PreSendStep, tokensBefore: number, messages: number) => {
    const entry: PreSendStepReport = { step, tokensBefore, tokensAfter: total, messages };
    report.steps.push(entry);
    report.tokensAfter = total;
    input.onStep?.(entry);
  };
  if (total <= limit) return { payload, report, reductions };

  // 1. Trim old tool results to one-line summaries, oldest first.
  {
    const start = total;
    const messages = payload.messages.slice();
    const lastCalls = lastCallsIndex(messages);
    const positions = new Map(history.map((message, position) => [message, position] as const));
    let changed = 0;
    for (let index = 0; index < lastCalls && total > limit; index++) {
      const message = messages[index]!;
      if (message.role !== 'tool') continue;
      const content = toolContentText(message);
      const position = historyPositionOf(history, positions, messages, index);
      const original = history[position];
      // The summary describes the whole result (from the history), even when the strategy sent only
      // part of it; a result the strategy already sends as that summary (mode A) is left as it is.
      const short = collapsedToolResult(
        callAnswered(messages, index),
        original?.role === 'tool' ? toolContentText(original) : content,
      );
      if (short.length >= content.length) continue;
      const copy: ToolMessage = { role: 'tool', tool_call_id: message.tool_call_id, content: short };
      const oldTokens = counter.countMessage(message);
      const newTokens = counter.countMessage(copy);
      messages[index] = copy;
      total += newTokens - oldTokens;
      changed++;
      const record = reduction(
        position,
        'trimmed',
        oldTokens,
        newTokens,
        'pre-send check step 1: an old tool result trimmed to a one-line summary',
      );
      if (record) reductions.push(record);
    }
    if (changed > 0) {
      payload = { ...payload, messages };
      total = payloadTokens(payload, counter);
      record('trim-old-tool-results', start, changed);
      if (total <= limit) return { payload, report, reductions };
    }
  }

  // 2. Compact history, when the strategy can.
  if (hasCompactionHooks(input.manager)) {
    const start = total;
    const usage = createTokenUsage({ input_tokens: Math.max(input.contextWindow, start) });
    const result = await input.manager.checkCompaction('after-tools', history.slice(), usage);
    if (result.compacted && result.messages) {
      compactedHistory = result.messages.slice();
      history = compactedHistory;
      reductions.length = 0;
      payload = await input.recompose(compactedHistory.slice());
      total = payloadTokens(payload, counter);
      record('compact-history', start, compactedHistory.length);
      if (total <= limit) return { payload, report, reductions, compactedHistory };
    }
  }

  // 3. Force-truncate tool results, largest first, head + tail.
  {
    const start = total;
    const messages = payload.messages.slice();
    const sizes = messages
      .map((message, index) => ({
        index,
        message,
        tokens: message.role === 'tool' ? counter.countMessage(message) : 0,
      }))
      .filter((entry) => entry.message.role === 'tool' && entry.tokens > MIN_TOOL_OUTPUT_TOKENS + 8)
      .sort((a, b) => b.tokens - a.tokens || a.index - b.index);
    const positions = new Map(history.map((message, position) => [message, position] as const));
    let changed = 0;
    for (const entry of sizes) {
      if (total <= limit) break;
      const message = entry.message as ToolMessage;
      const target = Math.max(MIN_TOOL_OUTPUT_TOKENS, entry.tokens - 4 - (total - limit));
      const cut = truncateToFit(toolContentText(message), { kind: 'head-tail', maxTokens: target, counter });
      if (!cut.truncated) continue;
      const copy: ToolMessage = { role: 'tool', tool_call_id: message.tool_call_id, content: cut.text };
      const newTokens = counter.countMessage(copy);
      if (newTokens >= entry.tokens) continue;
      const position = historyPositionOf(history, positions, messages, entry.index);
      messages[entry.index] = copy;
      total += newTokens - entry.tokens;
      changed++;
      const record = reduction(
        position,
        'truncated',
        entry.tokens,
        newTokens,
        'pre-send check step 3: a tool result force-truncated (head + tail)',
      );
      if (record) reductions.push(record);
    }
    if (changed > 0) {
      payload = { ...payload, messages };
      total = payloadTokens(payload, counter);
      record('truncate-tool-results', start, changed);
      if (total <= limit)
        return compactedHistory ? { payload, report, reductions, compactedHistory } : { payload, report, reductions };
    }
  }

  // 3b. Leave the oldest turns out (a retry after the provider refused the request for length).
  if (input.dropOldestTurns) {
    const start = total;
    const kept = dropOldestTurns(payload.messages, history, counter, total - limit);
    if (kept.dropped > 0) {
      payload = { ...payload, messages: kept.messages };
      reductions.push(...kept.reductions);
      total = payloadTokens(payload, counter);
      record('drop-oldest-turns', start, kept.dropped);
      if (total <= limit)
        return compactedHistory ? { payload, report, reductions, compactedHistory } : { payload, report, reductions };
    }
  }

  // 4. Refuse, saying what did not fit.
  let systemTokens = 0;
  let toolResultTokens = 0;
  let otherTokens = 0;
  for (const message of payload.messages) {
    const tokens = counter.countMessage(message);
    if (message.role === 'system') systemTokens += tokens;
    else if (message.role === 'tool') toolResultTokens += tokens;
    else otherTokens += tokens;
  }
  record('error', total, 0);
  throw new BudgetExceededError(
    input.strategyId,
    {
      available: limit,
      required: total,
      sections: {
        system: systemTokens,
        tools: counter.countTools(payload.tools),
        history: otherTokens,
        toolResults: toolResultTokens,
      },
    },
    'the next request, after trimming old tool results, compacting history and truncating tool results,',
  );
}
