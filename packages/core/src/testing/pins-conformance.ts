import type { ChatMessage } from '../contracts/chat-message';
import { hasDispose, hasWhenIdle, type IContextManager } from '../contracts/context-manager';
import type { LLMPayload } from '../contracts/llm-payload';
import { findPayloadProblems } from '../messages/find-payload-problems';
import { freezeDeep } from '../messages/freeze-deep';
import { availableBudgetFromConfig } from '../pins/available-budget-from-config';
import { pinMessageText } from '../pins/pin-block';
import { SessionPins } from '../pins/session-pins';
import { capabilitiesOf, SessionContextManager } from '../runtime/session-context-manager';
import { contentText } from '../token-counting/message-text';
import { payloadLimit } from './check-payload';
import type { CaseBudget } from './conformance-case';
import { createConformanceContext } from './conformance-context';
import type { ConformanceFailure } from './conformance-failure';
import { isFrozenWriteError } from './frozen-write-error';
import { configFor, type ConformanceCaseResult, type ConformanceTarget } from './run-conformance-case';
import { structuralKey } from './structural-key';
import { generateHistory, SYNTHETIC_TOOLS } from './synthetic-history';

const SYSTEM = 'You are a careful coding agent. Use the tools when needed.';
/** The pinned text: an instruction in two scripts, with an emoji. */
const RULE = 'Never delete files; ask before pushing. ファイルを削除しないこと 🚫';
const BUDGET: CaseBudget = { maxContextTokens: 3000, reserveOutputTokens: 500 };
const MESSAGES = 600;
const COMPOSE_POINTS = 16;

/** The name of the pins case, as the suite reports it. */
export const PINS_CASE_NAME =
  `a pinned first user message and a pinned text through the session ` +
  `layer, ${MESSAGES} messages at ${BUDGET.maxContextTokens.toLocaleString('en-US')} tokens`;

let sessionCounter = 0;

function describeError(error: unknown): string {
  return error instanceof Error ? `${error.name}: ${error.message.slice(0, 200)}` : String(error);
}

/**
 * Where an agent would compose: before each assistant message (after a user message or a complete tool step), and at
 * the end.
 */
function composePoints(history: readonly ChatMessage[]): number[] {
  const points: number[] = [];
  for (let end = 1; end < history.length; end++) if (history[end]!.role === 'assistant') points.push(end);
  points.push(history.length);
  const step = points.length / COMPOSE_POINTS;
  return points.length <= COMPOSE_POINTS
    ? points
    : Array.from({ length: COMPOSE_POINTS }, (_, i) => points[Math.floor((i + 1) * step) - 1]!);
}

/** Occurrences of `text` in the payload's message texts. */
function occurrences(payload: LLMPayload, text: string): number {
  let count = 0;
  for (const message of payload.messages) {
    const content = contentText(message.content);
    for (let at = content.indexOf(text); at !== -1; at = content.indexOf(text, at + text.length)) count++;
  }
  return count;
}

/**
 * What one payload must show: the system prompt unaltered first, both pins verbatim in the pinned
 * block's own user message right after the system messages (in no system message), once, within
 * budget, valid, reported.
 */
function checkPinnedPayload(payload: LLMPayload, task: string, tokens: number, limit: number): ConformanceFailure[] {
  const failures: ConformanceFailure[] = [];
  const first = payload.messages[0];
  if (first?.role !== 'system' || contentText(first.content) !== SYSTEM)
    failures.push({ invariant: 'pins', message: 'the payload does not start with the system prompt, unaltered' });
  let lead = 0;
  while (payload.messages[lead]?.role === 'system') lead++;
  const pinned = payload.messages[lead];
  const block = pinMessageText(`<pinned>\n[pin p1 · task]\n${task}\n\n[pin p2 · rule]\n${RULE}\n</pinned>`);
  if (pinned?.role !== 'user' || contentText(pinned.content) !== block) {
    failures.push({
      invariant: 'pins',
      message:
        'the system messages are not followed by the pinned block in a user message (both pinned texts verbatim)',
    });
  }
  if (
    payload.messages.some(
      (message) =>
        message.role === 'system' &&
        (contentText(message.content).includes(task) || contentText(message.content).includes(RULE)),
    )
  ) {
    failures.push({
      invariant: 'pins',
      message: 'a pinned text is in a system message: pinned content is sent in a user message',
    });
  }
  if (occurrences(payload, task) !== 1)
    failures.push({
      invariant: 'pins',
      message:
        `the pinned first user message appears ${occurrences(payload, task)} times in the payload (once ` +
        `expected: in the pinned block)`,
    });
  if (tokens > limit)
    failures.push({ invariant: 'budget', message: `the payload takes ${tokens} tokens, over the limit of ${limit}` });
  const problems = findPayloadProblems(payload.messages);
  if (problems.length > 0)
    failures.push({
      invariant: 'validity',
      message:
        `the payload would be ` +
        `rejected: ${problems.map((problem) => `${problem.problem} at ${problem.index}`).join(', ')}`,
    });
  const reported = payload.stats?.extra?.pins as { count?: unknown; ids?: unknown } | undefined;
  if (reported?.count !== 2 || structuralKey(reported.ids) !== structuralKey(['p1', 'p2']))
    failures.push({
      invariant: 'stats',
      message: `stats.extra.pins does not report the two pins (got ${JSON.stringify(reported)})`,
    });
  return failures;
}

/**
 * The pins case: the strategy runs behind the session layer every agent uses; the first user message
 * and a text are pinned, and a long generated history with tool calls is composed under a small
 * budget, turn by turn. On every payload the system prompt must come first unaltered, the pinned
 * texts verbatim in the pinned block's user message right after the system messages (the first user
 * message once, not twice, and never in a system message), within budget, valid for providers and
 * reported in `stats.extra.pins`, and the caller's history must be unchanged.
 */
export async function runPinsCase<TConfig>(target: ConformanceTarget<TConfig>): Promise<ConformanceCaseResult> {
  const failures: ConformanceFailure[] = [];
  const fail = (failure: ConformanceFailure, step?: number) =>
    failures.push({ ...failure, case: PINS_CASE_NAME, ...(step === undefined ? {} : { step }) });
  const history = freezeDeep(generateHistory({ messages: MESSAGES, seed: 11, maxToolOutputChars: 2400 }));
  const historyKey = structuralKey(history);
  const task = contentText(history[0]!.content);
  const tools = freezeDeep(structuredClone(SYNTHETIC_TOOLS));
  const { context } = createConformanceContext(`conformance-pins-${++sessionCounter}`, target.context, target.llm);
  const config = configFor(target, BUDGET);
  const settings = config as unknown as Record<string, unknown>;
  const model = typeof settings.model === 'string' && settings.model !== '' ? settings.model : context.model;
  let calls = 0;
  let manager: IContextManager;
  try {
    manager = await target.factory(config, context);
  } catch (error) {
    fail({
      invariant: isFrozenWriteError(error) ? 'immutability' : 'errors',
      message: `the factory threw: ${describeError(error)}`,
    });
    return { case: PINS_CASE_NAME, failures, composeCalls: calls };
  }
  const pins = new SessionPins({
    ...context,
    counter: context.counterFor(model),
    availableBudget: () => availableBudgetFromConfig(settings, model, context.models),
  });
  const owner = {
    pluginId: context.strategyId,
    agentId: context.agentId,
    sessionId: context.sessionId,
    isDisposed: () => false,
  };
  const session = new SessionContextManager(owner, manager, capabilitiesOf(manager), pins);
  try {
    await session.pin(0, { label: 'task' });
    await session.pin(RULE, { label: 'rule' });
    for (const [step, end] of composePoints(history).entries()) {
      const prefix = freezeDeep(history.slice(0, end));
      const members = prefix.slice();
      calls++;
      try {
        const payload = await session.composePayload(SYSTEM, prefix, tools);
        const tokens = context.counter.countMessages(payload.messages) + context.counter.countTools(payload.tools);
        for (const failure of checkPinnedPayload(payload, task, tokens, payloadLimit(BUDGET))) fail(failure, step);
        await session.onTurnComplete(prefix);
        if (hasWhenIdle(manager)) await manager.whenIdle();
      } catch (error) {
        fail(
          {
            invariant: isFrozenWriteError(error) ? 'immutability' : 'errors',
            message: `rejected with pins: ${describeError(error)}`,
          },
          step,
        );
      }
      if (prefix.length !== members.length || prefix.some((message, index) => message !== members[index]))
        fail({ invariant: 'immutability', message: 'the history array was changed' }, step);
    }
    if (structuralKey(history) !== historyKey)
      fail({ invariant: 'immutability', message: 'a history message was changed' });
  } catch (error) {
    fail({ invariant: 'errors', message: `pinning failed: ${describeError(error)}` });
  } finally {
    if (hasDispose(manager)) {
      try {
        await manager.dispose();
      } catch (error) {
        fail({ invariant: 'errors', message: `dispose() threw: ${describeError(error)}` });
      }
    }
  }
  return { case: PINS_CASE_NAME, failures, composeCalls: calls };
}
