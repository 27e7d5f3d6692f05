import {
  CtxkitError,
  safeEmit,
  type ToolCall,
  type ToolExecutionContext,
  ToolExecutionError,
  type ToolMessage,
  ToolNotFoundError,
} from '@ctxkit/core';

import { resolveToolOutputPolicy } from '../budget/tool-output-policy';
import { reportFileName, truncateToolResult } from '../budget/truncate-tool-result';
import { cannotFitAdvice, splitReadingAdvice } from '../small-context/user-advice';
import { giveAdvice } from './budget-step';
import { freezeNewMessage } from './frozen-message';
import type { RunContext } from './run-context';
import { eventBase, type RunRecord } from './run-record';

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

/** What the tool step returns for the loop to record. */
export interface ToolStepResult {
  /** One tool message per call, in order, to append to the history right after the answer that made the calls. */
  messages: ToolMessage[];
  outcomes: ToolCallOutcome[];
  /** True when the cheap check found the next payload will likely cross the pre-send line. */
  flagged: boolean;
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
 * Step 3: runs the tool calls of the model's last answer (the last message of the run's history), in
 * order, and returns one tool message per call for the loop to append right after that answer (so
 * the pair stays whole). A tool that throws, an unknown tool
 * and unreadable JSON arguments do not stop the run: the result tells the model the error
 * (`ToolExecutionError` / `ToolNotFoundError`), and `tool-error` is emitted. Each executor gets a
 * `ToolExecutionContext` with the tool-output token limit of the last payload,
 * shared between the calls of the step.
 *
 * Agent-side truncation: each result is then cut by the kernel to that same limit, by kind (head + tail
 * for command output, head for file reads, outline + part for large files under mode B), after the
 * fixed memory-protection caps (`truncateToolResult`). As each result is added, a cheap estimate
 * flags the budget when the next payload will likely cross the pre-send line (the real check runs
 * before the next call). Each output's report is appended to the run's.
 */
export async function runToolsStep(
  context: RunContext,
  record: Readonly<RunRecord>,
  calls: readonly ToolCall[],
  signal: AbortSignal | undefined,
): Promise<ToolStepResult> {
  const { events, tools } = context;
  const history = record.history;
  const messages: ToolMessage[] = [];
  const outcomes: ToolCallOutcome[] = [];
  let flagged = false;
  const { toolOutputTokenLimit, limit: line, tokens } = record.sent;
  const limit =
    toolOutputTokenLimit === undefined ? undefined : Math.floor(toolOutputTokenLimit / Math.max(1, calls.length));
  const assistant = history[history.length - 1];
  let estimate = tokens + (assistant ? roughTokens(JSON.stringify(assistant)) : 0);
  for (const call of calls) {
    const name = call.function.name;
    let content: string;
    let failure: CtxkitError | undefined;
    const tool = tools.get(name);
    if (!tool) {
      failure = new ToolNotFoundError(name, [...tools.keys()]);
      content = errorResult(failure);
    } else {
      const execution: ToolExecutionContext = {
        agentId: context.agentId,
        sessionId: context.sessionId,
        toolCallId: call.id,
      };
      if (limit !== undefined) execution.toolOutputTokenLimit = limit;
      if (signal !== undefined) execution.signal = signal;
      try {
        const args: unknown = call.function.arguments.trim() === '' ? {} : JSON.parse(call.function.arguments);
        content = resultText(await tool.execute(args, execution));
      } catch (error) {
        failure = new ToolExecutionError(name, call.id, error);
        content = errorResult(failure);
      }
    }
    if (!failure) {
      const policy = resolveToolOutputPolicy(name, call.function.arguments, context.toolOutputPolicies);
      const truncates = context.truncatesToBudget();
      const cut = truncateToolResult({
        toolCallId: call.id,
        toolName: name,
        content,
        policy,
        limit: truncates ? (limit ?? Number.POSITIVE_INFINITY) : Number.POSITIVE_INFINITY,
        counter: context.counter,
        splitReading: truncates ? (record.plan?.modes.B ?? 'off') : 'off',
        caps: context.toolOutputCaps,
      });
      content = cut.content;
      record.budget.toolOutputs.push(cut.report);
      if (cut.report.truncated) {
        // Where the message will sit in the history, after the results before it.
        const at = history.length + messages.length;
        safeEmit(events, 'tool-output-trim', {
          ...eventBase(context, record),
          reductions: [
            {
              action: 'truncated',
              from: at,
              to: at + 1,
              messages: 1,
              tokensBefore: cut.report.tokensBefore,
              tokensAfter: cut.report.tokensAfter,
              reason:
                `cut by the kernel before it entered the history ` +
                `(${cut.report.kind}${cut.report.capped ? ', after the memory cap' : ''}); the tool can be ` +
                `called again with offset/limit for the rest`,
              recoverableFrom: 'history',
            },
          ],
        });
      }
      if (cut.report.outline) {
        record.budget.modesFired.B++;
        const { lineCount, shownLines } = cut.report.outline;
        giveAdvice(
          context,
          record,
          shownLines > 0 ? splitReadingAdvice(reportFileName(policy), lineCount) : cannotFitAdvice(),
        );
      }
    }
    messages.push(freezeNewMessage({ role: 'tool', tool_call_id: call.id, content }));
    estimate += roughTokens(content);
    if (line !== undefined && estimate > line) flagged = true;
    if (failure) {
      safeEmit(events, 'tool-error', {
        ...eventBase(context, record),
        toolName: name,
        toolCallId: call.id,
        error: { code: failure.code, message: failure.message },
      });
      outcomes.push({ toolCallId: call.id, toolName: name, ok: false, errorCode: failure.code });
    } else {
      outcomes.push({ toolCallId: call.id, toolName: name, ok: true });
    }
  }
  return { messages, outcomes, flagged };
}
