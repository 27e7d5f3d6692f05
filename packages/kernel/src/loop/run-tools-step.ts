import {
  CtxkitError,
  safeEmit,
  ToolExecutionError,
  ToolNotFoundError,
  type CtxkitEventBus,
  type ToolCall,
  type ToolExecutionContext,
  type ToolMessage,
} from '@ctxkit/core';
import { resolveToolOutputPolicy } from '../budget/tool-output-policy';
import { reportFileName, truncateToolResult } from '../budget/truncate-tool-result';
import { cannotFitAdvice, splitReadingAdvice } from '../small-context/user-advice';
import { giveAdvice } from './budget-step';
import { freezeNewMessage } from './frozen-message';
import { eventBase, type RunState } from './run-state';
import type { SessionBudgetState } from './session-budget-state';

/** What happened to one tool call. */
export interface ToolCallOutcome {
  toolCallId: string;
  toolName: string;
  ok: boolean;
  /** The error code when `ok` is false. */
  errorCode?: string;
}

function resultText(value: unknown): string {
  if (typeof value === 'string') return value;
  if (value === undefined) return '';
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}

/** The tool result the model gets for a failed call: says what failed, never hides it. */
function errorResult(error: CtxkitError): string {
  return `Error: ${error.message.split(' Fix: ')[0]}`;
}

/** The cheap check's estimate of a message: about four characters a token, plus the per-message overhead. */
function roughTokens(text: string): number {
  return Math.ceil(text.length / 4) + 4;
}

/**
 * Step 3: runs the tool calls of the model's last answer, in order, and appends one tool message
 * per call right after that answer (so the pair stays whole). A tool that throws, an unknown tool
 * and unreadable JSON arguments do not stop the run: the result tells the model the error
 * (`ToolExecutionError` / `ToolNotFoundError`), and `tool-error` is emitted. Each executor gets a
 * `ToolExecutionContext` with the tool-output token limit of the last payload,
 * shared between the calls of the step.
 *
 * Agent-side truncation: each result is then cut by the kernel to that same limit, by kind (head + tail
 * for command output, head for file reads, outline + part for large files under mode B), after the
 * fixed memory-protection caps (`truncateToolResult`). As each result is added, a cheap estimate
 * flags the budget when the next payload will likely cross the pre-send line (the real check runs
 * before the next call).
 */
export async function runToolsStep(
  state: RunState,
  calls: readonly ToolCall[],
  events: CtxkitEventBus,
  signal: AbortSignal | undefined,
  session?: SessionBudgetState,
): Promise<ToolCallOutcome[]> {
  const outcomes: ToolCallOutcome[] = [];
  const limit = state.toolOutputTokenLimit === undefined ? undefined : Math.floor(state.toolOutputTokenLimit / Math.max(1, calls.length));
  const assistant = state.history[state.history.length - 1];
  let estimate = state.lastPayloadTokens + (assistant ? roughTokens(JSON.stringify(assistant)) : 0);
  for (const call of calls) {
    const name = call.function.name;
    let content: string;
    let failure: CtxkitError | undefined;
    const tool = state.tools.get(name);
    if (!tool) {
      failure = new ToolNotFoundError(name, [...state.tools.keys()]);
      content = errorResult(failure);
    } else {
      const context: ToolExecutionContext = { agentId: state.agentId, sessionId: state.sessionId, toolCallId: call.id };
      if (limit !== undefined) context.toolOutputTokenLimit = limit;
      if (signal !== undefined) context.signal = signal;
      try {
        const args: unknown = call.function.arguments.trim() === '' ? {} : JSON.parse(call.function.arguments);
        content = resultText(await tool.execute(args, context));
      } catch (error) {
        failure = new ToolExecutionError(name, call.id, error);
        content = errorResult(failure);
      }
    }
    if (!failure) {
      const policy = resolveToolOutputPolicy(name, call.function.arguments, state.toolOutputPolicies);
      const cut = truncateToolResult({
        toolCallId: call.id,
        toolName: name,
        content,
        policy,
        limit: state.truncateToBudget ? (limit ?? Number.POSITIVE_INFINITY) : Number.POSITIVE_INFINITY,
        counter: state.counter,
        splitReading: state.truncateToBudget ? (state.plan?.modes.B ?? 'off') : 'off',
        caps: state.toolOutputCaps,
      });
      content = cut.content;
      state.budget.toolOutputs.push(cut.report);
      if (cut.report.truncated) {
        safeEmit(events, 'tool-output-trim', {
          ...eventBase(state),
          reductions: [
            {
              action: 'truncated',
              from: state.history.length,
              to: state.history.length + 1,
              messages: 1,
              tokensBefore: cut.report.tokensBefore,
              tokensAfter: cut.report.tokensAfter,
              reason: `cut by the kernel before it entered the history (${cut.report.kind}${cut.report.capped ? ', after the memory cap' : ''}); the tool can be called again with offset/limit for the rest`,
              recoverableFrom: 'history',
            },
          ],
        });
      }
      if (cut.report.outline) {
        state.budget.modesFired.B++;
        const { lineCount, shownLines } = cut.report.outline;
        if (session) giveAdvice(state, session, events, shownLines > 0 ? splitReadingAdvice(reportFileName(policy), lineCount) : cannotFitAdvice());
      }
    }
    const message: ToolMessage = freezeNewMessage({ role: 'tool', tool_call_id: call.id, content });
    state.history.push(message);
    estimate += roughTokens(content);
    if (state.budgetLimit !== undefined && estimate > state.budgetLimit) state.budgetFlag = true;
    if (failure) {
      safeEmit(events, 'tool-error', { ...eventBase(state), toolName: name, toolCallId: call.id, error: { code: failure.code, message: failure.message } });
      outcomes.push({ toolCallId: call.id, toolName: name, ok: false, errorCode: failure.code });
    } else {
      outcomes.push({ toolCallId: call.id, toolName: name, ok: true });
    }
  }
  return outcomes;
}
