import { createHash } from 'node:crypto';

import type { ChatMessage } from '../contracts/chat-message';
import { hasDispose, hasWhenIdle, type IContextManager } from '../contracts/context-manager';
import type { LLMPayload } from '../contracts/llm-payload';
import { CtxkitError } from '../errors/ctxkit-error';
import { freezeDeep } from '../messages/freeze-deep';
import type { StrategyFactory } from '../plugins/strategy-plugin';
import { checkPayload, checkRejection, type ComposeCall, mandatoryTokens, payloadLimit } from './check-payload';
import type { CaseBudget, ConformanceCase } from './conformance-case';
import { type ConformanceContextInput, type ConformanceLLM, createConformanceContext } from './conformance-context';
import type { ConformanceFailure } from './conformance-failure';
import { isFrozenWriteError } from './frozen-write-error';
import { structuralKey } from './structural-key';

/** The strategy under test: its factory, its config (per budget, or fixed), its context and LLM. */
export interface ConformanceTarget<TConfig = Record<string, unknown>> {
  factory: StrategyFactory<TConfig>;
  /**
   * The strategy's config; the suite adds `maxContextTokens` and `reserveOutputTokens` of each case.
   * Pass the config with its schema defaults applied, as the loader would.
   * @default {}
   */
  config?: Partial<TConfig> | ((budget: CaseBudget) => TConfig);
  /** Context fields to use instead of the suite's defaults (counter, model, store, llm ...). */
  context?: ConformanceContextInput;
  /** A fixed answer repeated by a scripted client, a client, or none. @default undefined */
  llm?: ConformanceLLM;
  /** Check determinism by replaying each case on a second fresh instance. @default true */
  determinism?: boolean;
}

/** The outcome of one case. */
export interface ConformanceCaseResult {
  case: string;
  failures: ConformanceFailure[];
  /** Number of composePayload calls made (both instances). */
  composeCalls: number;
}

let sessionCounter = 0;

function digest(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

function traceOf(payload: LLMPayload): string {
  return digest(
    structuralKey({
      messages: payload.messages,
      tools: payload.tools,
      reductions: payload.stats?.reductions,
      output: payload.stats?.output_tokens,
    }),
  );
}

/** The target's config for a case budget, deep-frozen (the strategy may not change it). */
export function configFor<TConfig>(target: ConformanceTarget<TConfig>, budget: CaseBudget): TConfig {
  const base = typeof target.config === 'function' ? target.config(budget) : { ...(target.config ?? {}), ...budget };
  return freezeDeep(structuredClone(base) as TConfig);
}

function describeError(error: unknown): string {
  return error instanceof Error ? `${error.name}: ${error.message.slice(0, 200)}` : String(error);
}

/** Plays a case on one fresh instance; returns failures and a digest of each step's outcome. */
async function playOnce<TConfig>(
  target: ConformanceTarget<TConfig>,
  testCase: ConformanceCase,
): Promise<{ failures: ConformanceFailure[]; trace: string[]; calls: number }> {
  const failures: ConformanceFailure[] = [];
  const trace: string[] = [];
  const { context, events } = createConformanceContext(`conformance-${++sessionCounter}`, target.context, target.llm);
  const config = configFor(target, testCase.budget);
  const configKey = structuralKey(config);
  const tools = freezeDeep(testCase.tools);
  const toolsKey = structuralKey(tools);
  freezeDeep(testCase.history);
  let calls = 0;
  let manager: IContextManager;
  try {
    manager = await target.factory(config, context);
  } catch (error) {
    failures.push({
      invariant: isFrozenWriteError(error) ? 'immutability' : 'errors',
      message: `the factory threw: ${describeError(error)}`,
    });
    return { failures, trace, calls };
  }
  try {
    for (const [stepIndex, step] of testCase.steps.entries()) {
      const stepFailures: ConformanceFailure[] = [];
      const history = freezeDeep(testCase.history.slice(0, step.upTo)) as ChatMessage[];
      const members = history.slice();
      const call: ComposeCall = {
        systemPrompt: testCase.systemPrompt,
        history,
        tools,
        ragContext: testCase.ragContext,
        budget: testCase.budget,
        counter: context.counter,
        identity: { agentId: context.agentId, sessionId: context.sessionId, strategyId: context.strategyId },
      };
      if (step.kind === 'compose') {
        calls++;
        const mark = events.length;
        let payload: LLMPayload | undefined;
        try {
          payload = await manager.composePayload(testCase.systemPrompt, history, tools as never, testCase.ragContext);
        } catch (error) {
          stepFailures.push(...checkRejection(call, error, testCase.expect));
          trace.push(`error:${CtxkitError.isInstance(error) ? error.code : 'generic'}`);
        }
        if (payload !== undefined) {
          const limit = payloadLimit(testCase.budget);
          if (testCase.expect === 'typed-error')
            stepFailures.push({
              invariant: 'errors',
              message: 'composePayload must reject this input with a typed CtxkitError',
            });
          else if (testCase.expect === 'budget-exceeded' && mandatoryTokens(call) <= limit)
            stepFailures.push({
              invariant: 'errors',
              message: 'composePayload must reject with CTXKIT_BUDGET_EXCEEDED',
            });
          stepFailures.push(
            ...checkPayload(call, { payload, events: events.slice(mark), priorEvents: events.slice(0, mark) }),
          );
          trace.push(traceOf(payload));
        }
      } else {
        try {
          await manager.onTurnComplete(history);
          if (hasWhenIdle(manager)) await manager.whenIdle();
        } catch (error) {
          if (isFrozenWriteError(error))
            stepFailures.push({
              invariant: 'immutability',
              message: `onTurnComplete wrote to its frozen input (${describeError(error)})`,
            });
          else if (!CtxkitError.isInstance(error) || testCase.expect === 'payload')
            stepFailures.push({ invariant: 'errors', message: `onTurnComplete rejected: ${describeError(error)}` });
        }
        trace.push('turn');
      }
      if (history.length !== members.length || history.some((message, index) => message !== members[index])) {
        stepFailures.push({ invariant: 'immutability', message: 'the history array was changed' });
      }
      if (structuralKey(tools) !== toolsKey)
        stepFailures.push({ invariant: 'immutability', message: 'the tool definitions were changed' });
      if (structuralKey(config) !== configKey)
        stepFailures.push({ invariant: 'immutability', message: 'the config was changed' });
      for (const failure of stepFailures) failures.push({ ...failure, case: testCase.name, step: stepIndex });
    }
  } finally {
    if (hasDispose(manager)) {
      try {
        await manager.dispose();
      } catch (error) {
        failures.push({
          invariant: 'errors',
          case: testCase.name,
          message: `dispose() threw: ${describeError(error)}`,
        });
      }
    }
  }
  return { failures, trace, calls };
}

/**
 * Runs one case against fresh instances of the target: every step checked, then (unless
 * `determinism: false`) the same steps on a second fresh instance, whose outcomes must be identical.
 */
export async function runConformanceCase<TConfig>(
  target: ConformanceTarget<TConfig>,
  testCase: ConformanceCase,
): Promise<ConformanceCaseResult> {
  const first = await playOnce(target, testCase);
  const failures = first.failures.map((failure) => ({ ...failure, case: failure.case ?? testCase.name }));
  let composeCalls = first.calls;
  if (target.determinism !== false) {
    const second = await playOnce(target, testCase);
    composeCalls += second.calls;
    const step = first.trace.findIndex((entry, index) => entry !== second.trace[index]);
    if (step !== -1 || first.trace.length !== second.trace.length) {
      failures.push({
        invariant: 'determinism',
        case: testCase.name,
        step: step === -1 ? first.trace.length : step,
        message: 'two fresh instances given the same inputs composed different payloads',
      });
    }
  }
  return { case: testCase.name, failures, composeCalls };
}
