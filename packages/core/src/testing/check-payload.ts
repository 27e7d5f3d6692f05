import type { ChatMessage } from '../contracts/chat-message';
import type { LLMPayload, ReductionRecord } from '../contracts/llm-payload';
import type { ToolDefinition } from '../contracts/tool-definition';
import { CtxkitError } from '../errors/ctxkit-error';
import { ErrorCodes } from '../errors/error-codes';
import type { CtxkitEventName } from '../events/ctxkit-events';
import { REDUCTION_EVENT } from '../events/reduction-events';
import { findPayloadProblems } from '../messages/find-payload-problems';
import { groupEndingAt } from '../messages/group-tool-calls';
import { contentText } from '../token-counting/message-text';
import type { ITokenCounter } from '../token-counting/token-counter';
import type { CaseBudget, CaseExpectation } from './conformance-case';
import type { ConformanceFailure } from './conformance-failure';
import { isFrozenWriteError } from './frozen-write-error';
import { structuralKey } from './structural-key';

/** One `composePayload` call as the checks see it. */
export interface ComposeCall {
  systemPrompt: string;
  history: ReadonlyArray<Readonly<ChatMessage>>;
  tools: ReadonlyArray<Readonly<ToolDefinition>>;
  ragContext?: string;
  budget: CaseBudget;
  /** The counter of the strategy's context: the budget is measured with it. */
  counter: ITokenCounter;
  /** Identity every event must carry. */
  identity?: { agentId: string; sessionId: string; strategyId: string };
}

/** An event the strategy emitted. */
export interface RecordedEvent {
  name: CtxkitEventName | string;
  payload: Record<string, unknown>;
}

/** What the strategy answered, with the events of the call and of the session before it. */
export interface PayloadObservation {
  payload: LLMPayload;
  /** Events emitted during this call. */
  events: readonly RecordedEvent[];
  /** Events emitted earlier in the same session (background summaries, compactions). */
  priorEvents?: readonly RecordedEvent[];
}

/** Events that report a reduction during the call itself. */
export const REDUCTION_EVENTS: readonly string[] = [
  'history-trim',
  'history-recall',
  'tool-output-trim',
  'summary-end',
  'compaction-end',
  'entities-updated',
];
/** Events that, once emitted in a session, account for later summarized / compacted / extracted history. */
const LASTING_REDUCTION_EVENTS: readonly string[] = ['summary-end', 'compaction-end', 'entities-updated'];
/** A visible truncation marker in a shortened newest user message. */
const TRUNCATION_MARKER = /truncat|elided|omitted|…|\.\.\./i;

const keyCache = new WeakMap<object, string>();

/** Structural key of a message, ignoring an added `output_ref` (a cache reference loses nothing). */
function messageKey(message: Readonly<ChatMessage>): string {
  const frozen = Object.isFrozen(message);
  if (frozen) {
    const cached = keyCache.get(message);
    if (cached !== undefined) return cached;
  }
  const { output_ref: _ref, ...rest } = message as ChatMessage & { output_ref?: unknown };
  const key = structuralKey(rest);
  if (frozen) keyCache.set(message, key);
  return key;
}

/** Loose identity: the role and the tool-call ids and names, content aside (truncated outputs). */
function looseKey(message: Readonly<ChatMessage>): string {
  switch (message.role) {
    case 'tool':
      return `tool:${message.tool_call_id}`;
    case 'assistant':
      return `assistant:${(message.tool_calls ?? []).map((call) => `${call.id}/${call.function?.name}`).join(',')}`;
    default:
      return String((message as { role?: unknown }).role);
  }
}

/**
 * For each history index, whether the message reaches the payload unaltered: an in-order match of
 * structural keys, walking back from the newest message (strategies may insert summaries, state or
 * RAG between history messages). Indexes for which `skip` is true are not matched (left false).
 */
export function matchHistoryInPayload(
  history: ReadonlyArray<Readonly<ChatMessage>>,
  payloadMessages: ReadonlyArray<Readonly<ChatMessage>>,
  keyOf: (message: Readonly<ChatMessage>) => string = messageKey,
  skip?: (index: number) => boolean,
): boolean[] {
  const positions = new Map<string, number[]>();
  payloadMessages.forEach((message, index) => {
    const key = keyOf(message);
    const list = positions.get(key);
    if (list) list.push(index);
    else positions.set(key, [index]);
  });
  const matched = new Array<boolean>(history.length).fill(false);
  let limit = payloadMessages.length;
  for (let i = history.length - 1; i >= 0 && limit > 0; i--) {
    if (skip?.(i)) continue;
    const list = positions.get(keyOf(history[i]!));
    if (!list) continue;
    let lo = 0;
    let hi = list.length - 1;
    let found = -1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      if (list[mid]! < limit) {
        found = list[mid]!;
        lo = mid + 1;
      } else hi = mid - 1;
    }
    if (found !== -1) {
      matched[i] = true;
      limit = found;
    }
  }
  return matched;
}

function textOfContent(message: Readonly<ChatMessage>): string {
  return contentText((message as { content?: unknown }).content as ChatMessage['content']);
}

function covers(reductions: readonly ReductionRecord[], index: number): ReductionRecord | undefined {
  return reductions.find((r) => r.from <= index && index < r.to);
}

function summarizeIndexes(indexes: readonly number[]): string {
  const ranges: string[] = [];
  let start = indexes[0];
  let previous = start;
  for (const index of [...indexes.slice(1), Number.NaN]) {
    if (index === previous! + 1) {
      previous = index;
      continue;
    }
    ranges.push(start === previous ? `${start}` : `${start}-${previous}`);
    start = index;
    previous = index;
  }
  return ranges.slice(0, 8).join(', ') + (ranges.length > 8 ? ', ...' : '');
}

/** Tokens of what may never be dropped: the system prompt and the tool definitions. */
export function mandatoryTokens(call: Pick<ComposeCall, 'systemPrompt' | 'tools' | 'counter'>): number {
  return (
    call.counter.countMessages([{ role: 'system', content: call.systemPrompt }]) + call.counter.countTools(call.tools)
  );
}

/** The payload's hard limit: `maxContextTokens - reserveOutputTokens`. */
export function payloadLimit(budget: CaseBudget): number {
  return budget.maxContextTokens - budget.reserveOutputTokens;
}

/**
 * Checks one payload against every strategy invariant that a single call can show: priority
 * (system first and unaltered, tool definitions complete and unchanged), budget (by the call's
 * counter), provider validity (`findPayloadProblems`, the newest user message, the newest complete
 * unit of the current turn), nothing silently lost (every absent or altered history message is
 * covered by `stats.reductions` and an event reports it; every record of `stats.reductions`
 * reported by exactly one event, see {@link checkReductionEvents}), stats consistency and event identity.
 * Returns the failures; an empty list means the payload passes.
 */
export function checkPayload(call: ComposeCall, observation: PayloadObservation): ConformanceFailure[] {
  const failures: ConformanceFailure[] = [];
  const fail = (invariant: ConformanceFailure['invariant'], message: string) => failures.push({ invariant, message });
  const { payload } = observation;
  if (
    !payload ||
    !Array.isArray(payload.messages) ||
    !Array.isArray(payload.tools) ||
    typeof payload.stats !== 'object' ||
    payload.stats === null
  ) {
    fail('stats', 'composePayload must resolve to { messages: ChatMessage[], tools: ToolDefinition[], stats }');
    return failures;
  }
  const { messages, tools, stats } = payload;
  const limit = payloadLimit(call.budget);

  // 1. priority
  const first = messages[0];
  if (!first || first.role !== 'system' || first.content !== call.systemPrompt) {
    fail('priority', 'the first payload message must be the system prompt, unaltered');
  }
  const payloadToolKeys = new Set(tools.map((tool) => structuralKey(tool)));
  for (const tool of call.tools) {
    if (!payloadToolKeys.has(structuralKey(tool)))
      fail('priority', `tool definition "${tool.function?.name}" is missing or altered in the payload`);
  }

  // 2. budget
  const used = call.counter.countMessages(messages) + call.counter.countTools(tools);
  if (used > limit)
    fail(
      'budget',
      `payload uses ${used} tokens, over the limit ${limit} (maxContextTokens ${call.budget.maxContextTokens} - ` +
        `reserveOutputTokens ${call.budget.reserveOutputTokens})`,
    );
  if (mandatoryTokens(call) > limit)
    fail(
      'budget',
      `system prompt + tools exceed the limit ${limit}: composePayload must reject with ${ErrorCodes.BUDGET_EXCEEDED}`,
    );

  // 3. provider validity
  for (const problem of findPayloadProblems(messages)) {
    if (problem.problem === 'no-user-message' && !call.history.some((m) => m.role === 'user')) continue;
    fail('validity', `payload[${problem.index}] ${problem.problem}: ${problem.detail}`);
  }
  // Opaque provider items (reasoning, thinking, compaction) go with their message whole: never edited, split or
  // reordered.
  const opaque = new Set<string>();
  for (const message of call.history)
    if (message.role === 'assistant' && message.reasoning && message.reasoning.length > 0)
      opaque.add(JSON.stringify(message.reasoning));
  messages.forEach((message, index) => {
    if (message.role !== 'assistant' || !message.reasoning || message.reasoning.length === 0) return;
    if (!opaque.has(JSON.stringify(message.reasoning)))
      fail(
        'validity',
        `payload[${index}] carries opaque provider items (reasoning, thinking, compaction) that no history message ` +
          `carries as they are: they were edited, split or reordered`,
      );
  });
  const reductions: readonly ReductionRecord[] = Array.isArray(stats.reductions) ? stats.reductions : [];
  const matched = matchHistoryInPayload(call.history, messages);
  let newestUser = -1;
  for (let i = call.history.length - 1; i >= 0; i--) {
    if (call.history[i]!.role === 'user') {
      newestUser = i;
      break;
    }
  }
  if (newestUser !== -1 && !matched[newestUser]) {
    const original = textOfContent(call.history[newestUser]!);
    const head = original.slice(0, 16);
    const tail = original.slice(-16);
    const truncated = messages.some((m) => {
      if (m.role !== 'user') return false;
      const text = textOfContent(m);
      return (
        text.length < original.length && TRUNCATION_MARKER.test(text) && (text.startsWith(head) || text.endsWith(tail))
      );
    });
    if (!truncated)
      fail(
        'validity',
        `the newest user message (history[${newestUser}]) is missing from the payload (it may only be truncated ` +
          `with a visible marker)`,
      );
    else if (!covers(reductions, newestUser))
      fail('reporting', `the newest user message (history[${newestUser}]) was truncated without a reduction record`);
  }
  // the newest complete unit of the current turn is present (its outputs may be truncated)
  let end = call.history.length;
  while (end > 0 && end > newestUser) {
    const group = groupEndingAt(call.history, end);
    if (group.kind === 'tool-exchange' || group.kind === 'assistant' || group.kind === 'user') {
      if (group.start > newestUser) {
        const looseMatched = matchHistoryInPayload(call.history.slice(group.start, group.end), messages, looseKey);
        if (looseMatched.some((ok) => !ok)) {
          fail(
            'validity',
            `the current turn was dropped: its newest unit (history[${group.start}..${group.end - 1}]) is not in ` +
              `the payload (truncate its outputs instead)`,
          );
        }
      }
      break;
    }
    end = group.start;
  }

  // 5. nothing silently lost
  for (const r of reductions) {
    // An empty range with no messages names a section outside the history (the dynamic context, a memory block).
    const section = r.from === r.to && r.messages === 0;
    if (!(
      Number.isInteger(r.from) &&
      Number.isInteger(r.to) &&
      0 <= r.from &&
      (r.from < r.to || section) &&
      r.to <= call.history.length
    )) {
      fail(
        'stats',
        `reduction ${JSON.stringify({ action: r.action, from: r.from, to: r.to })} is not a range of history ` +
          `indexes [0, ${call.history.length}]`,
      );
    }
  }
  // The messages a reduction covers may be absent: a second matching leaves them out, so that a message
  // repeated verbatim in the history (the same tool call and result on every turn) is matched to the
  // copy the payload kept (a window's head kept in front of a cut), not to a dropped copy after it.
  const kept = matchHistoryInPayload(
    call.history,
    messages,
    messageKey,
    (index) => covers(reductions, index) !== undefined,
  );
  const uncovered: number[] = [];
  let reduced = 0;
  for (let i = 0; i < call.history.length; i++) {
    if (matched[i]) continue;
    reduced++;
    if (!kept[i] && !covers(reductions, i)) uncovered.push(i);
  }
  if (uncovered.length > 0) {
    fail(
      'reporting',
      `history[${summarizeIndexes(uncovered)}] ${uncovered.length === 1 ? 'is' : 'are'} absent or altered in the ` +
        `payload, but no stats.reductions record covers ${uncovered.length === 1 ? 'it' : 'them'}`,
    );
  }
  if (reduced > 0) {
    const now = observation.events.some((e) => REDUCTION_EVENTS.includes(e.name));
    const before = (observation.priorEvents ?? []).some((e) => LASTING_REDUCTION_EVENTS.includes(e.name));
    if (!now && !before)
      fail(
        'events',
        `${reduced} history message(s) left the payload or were altered, but no event ` +
          `(${REDUCTION_EVENTS.join(', ')}) reported it`,
      );
  }

  failures.push(...checkReductionEvents(reductions, observation, call.identity?.sessionId));

  // stats
  if (stats.output_tokens !== used)
    fail('stats', `stats.output_tokens is ${stats.output_tokens}, the payload counts ${used}`);
  const expectedRatio = stats.input_tokens === 0 ? 1 : stats.output_tokens / stats.input_tokens;
  if (!(
    typeof stats.compress_ratio === 'number' &&
    Math.abs(stats.compress_ratio - expectedRatio) <= 1e-6 * Math.max(1, expectedRatio)
  )) {
    fail('stats', `stats.compress_ratio is ${stats.compress_ratio}, output_tokens / input_tokens is ${expectedRatio}`);
  }
  const sum = (...actions: string[]) =>
    reductions.filter((r) => actions.includes(r.action)).reduce((total, r) => total + r.messages, 0);
  const counts: Array<[keyof typeof stats & string, number]> = [
    ['dropped', sum('dropped')],
    ['summarized', sum('summarized')],
    ['compacted', sum('compacted')],
    ['trimmed', sum('trimmed', 'truncated', 'micro-compacted')],
  ];
  for (const [field, expected] of counts) {
    if (stats[field] !== expected)
      fail('stats', `stats.${field} is ${String(stats[field])}, the reductions sum to ${expected}`);
  }

  // events carry their identity
  if (call.identity) {
    for (const event of observation.events) {
      const p = event.payload;
      if (
        p.agentId !== call.identity.agentId ||
        p.sessionId !== call.identity.sessionId ||
        p.strategyId !== call.identity.strategyId ||
        typeof p.turn !== 'number'
      ) {
        fail(
          'events',
          `event "${event.name}" must carry agentId, sessionId, strategyId of its context and a numeric turn`,
        );
        break;
      }
    }
  }
  return failures;
}

/** The ref by which an event names the summary or compaction it made (`summary:<version>`, the transcript ref). */
function madeRef(event: RecordedEvent): string | undefined {
  if (event.name === 'summary-end') return `summary:${String(event.payload.version)}`;
  if (event.name === 'compaction-end' && typeof event.payload.transcriptRef === 'string')
    return event.payload.transcriptRef;
  return undefined;
}

/**
 * Whether a `history-recall` event's hits in `sessionId` hold the recalled range of `record` (adjacent hits make one
 * range).
 */
function recallHolds(event: RecordedEvent, record: ReductionRecord, sessionId: string | undefined): boolean {
  const hits = Array.isArray(event.payload.hits)
    ? (event.payload.hits as Array<{ sessionId?: unknown; from?: unknown; to?: unknown }>)
    : [];
  const ranges = hits
    .filter((hit) => sessionId === undefined || hit.sessionId === sessionId)
    .map((hit) => ({ from: Number(hit.from), to: Number(hit.to) }))
    .sort((a, b) => a.from - b.from);
  let at = record.from;
  for (const range of ranges) if (range.from <= at && at < range.to) at = range.to;
  return at >= record.to;
}

function describeRecord(record: ReductionRecord): string {
  return JSON.stringify({
    action: record.action,
    from: record.from,
    to: record.to,
    messages: record.messages,
    reason: record.reason,
  });
}

/**
 * Checks that every record of a payload's `stats.reductions` is reported by exactly one event, the one
 * its action names (`REDUCTION_EVENT`): `history-trim` or `tool-output-trim` of the call, carrying the
 * record in `reductions`; the call's `history-recall` whose hits hold a recalled range; the session's
 * `summary-end` or `compaction-end` that made the summary or compaction the record names in `refs`
 * (`entities-updated` for extracted history). No event of the call carries a record the payload does
 * not have.
 */
export function checkReductionEvents(
  reductions: readonly ReductionRecord[],
  observation: PayloadObservation,
  sessionId?: string,
): ConformanceFailure[] {
  const failures: ConformanceFailure[] = [];
  const fail = (message: string) => failures.push({ invariant: 'events', message });
  // Each record the call's events carry, by structural key: the names of the events carrying it, once per copy.
  const carried = new Map<string, string[]>();
  for (const event of observation.events) {
    const list = event.payload.reductions;
    if (!Array.isArray(list)) continue;
    for (const record of list) {
      const key = structuralKey(record);
      const names = carried.get(key);
      if (names) names.push(event.name);
      else carried.set(key, [event.name]);
    }
  }
  // The payload's records by structural key, with how many copies it holds of each.
  const records = new Map<string, { record: ReductionRecord; copies: number }>();
  for (const record of reductions) {
    const key = structuralKey(record);
    const entry = records.get(key);
    if (entry) entry.copies++;
    else records.set(key, { record, copies: 1 });
  }
  const session = [...(observation.priorEvents ?? []), ...observation.events];
  for (const [key, { record, copies }] of records) {
    const expected = REDUCTION_EVENT[record.action] as string | undefined;
    const carriers = carried.get(key) ?? [];
    let reports: string[];
    if (expected === 'history-trim' || expected === 'tool-output-trim') {
      reports = carriers;
      if (carriers.length === copies && carriers.every((name) => name === expected)) continue;
    } else {
      let own: RecordedEvent[];
      if (expected === 'history-recall')
        own = observation.events.filter((event) => event.name === expected && recallHolds(event, record, sessionId));
      else {
        // The event that made the summary, compaction or state: the one the record's refs name, else the latest.
        const made = session.filter((event) => event.name === expected);
        const refs = record.refs ?? [];
        own = refs.length > 0 ? made.filter((event) => refs.includes(madeRef(event) ?? '')) : made.slice(-1);
      }
      reports = [...carriers, ...own.map((event) => event.name)];
      if (carriers.length === 0 && own.length === 1) continue;
    }
    const times = copies > 1 ? ` (${copies} copies)` : '';
    fail(
      `reduction ${describeRecord(record)}${times} is reported ` +
        `by ${reports.length === 0 ? 'no event' : reports.join(', ')}; each record of stats.reductions is ` +
        `reported by exactly one event, here ${expected ?? 'none'}`,
    );
  }
  for (const [key, names] of carried) {
    if (!records.has(key))
      fail(`an event (${names.join(', ')}) reports a reduction this payload's stats.reductions do not have`);
  }
  return failures;
}

/**
 * Checks a rejected `composePayload` against the case's expectation: a typed `CtxkitError` only;
 * `CTXKIT_BUDGET_EXCEEDED` when system + tools exceed the limit; no rejection of a call that fits
 * easily (system + tools at most half the limit) unless the case is hostile.
 */
export function checkRejection(call: ComposeCall, error: unknown, expectation: CaseExpectation): ConformanceFailure[] {
  const failures: ConformanceFailure[] = [];
  const fail = (invariant: ConformanceFailure['invariant'], message: string) => failures.push({ invariant, message });
  const describe = error instanceof Error ? `${error.name}: ${error.message.slice(0, 200)}` : String(error);
  if (isFrozenWriteError(error)) {
    fail('immutability', `composePayload wrote to its frozen input (${describe})`);
    return failures;
  }
  if (!CtxkitError.isInstance(error)) {
    fail('errors', `composePayload rejected with a generic error, not a CtxkitError (${describe})`);
    return failures;
  }
  const limit = payloadLimit(call.budget);
  const mandatory = mandatoryTokens(call);
  if (mandatory > limit || expectation === 'budget-exceeded') {
    if (error.code !== ErrorCodes.BUDGET_EXCEEDED)
      fail(
        'errors',
        `system prompt + tools (${mandatory} tokens) exceed the limit ${limit}: ` +
          `expected ${ErrorCodes.BUDGET_EXCEEDED}, got ${error.code}`,
      );
    return failures;
  }
  if (expectation === 'typed-error' || expectation === 'payload-or-typed-error') return failures;
  if (error.code === ErrorCodes.BUDGET_EXCEEDED && mandatory * 2 > limit) return failures;
  fail(
    'errors',
    `composePayload rejected a call that fits (system + tools ${mandatory} of ${limit} tokens): ${describe}`,
  );
  return failures;
}
