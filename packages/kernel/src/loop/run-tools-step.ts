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
import { eventBase, type RunState } from './run-state';

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

/**
 * Step 3: runs the tool calls of the model's last answer, in order, and appends one tool message
 * per call right after that answer (so the pair stays whole). A tool that throws, an unknown tool
 * and unreadable JSON arguments do not stop the run: the result tells the model the error
 * (`ToolExecutionError` / `ToolNotFoundError`), and `tool-error` is emitted. Each executor gets a
 * `ToolExecutionContext` with the tool-output token limit of the last payload (seed 004 Phase 2),
 * shared between the calls of the step.
 */
export async function runToolsStep(
  state: RunState,
  calls: readonly ToolCall[],
  events: CtxkitEventBus,
  signal: AbortSignal | undefined,
): Promise<ToolCallOutcome[]> {
  const outcomes: ToolCallOutcome[] = [];
  const limit = state.toolOutputTokenLimit === undefined ? undefined : Math.floor(state.toolOutputTokenLimit / Math.max(1, calls.length));
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
    const message: ToolMessage = { role: 'tool', tool_call_id: call.id, content };
    state.history.push(message);
    if (failure) {
      safeEmit(events, 'tool-error', { ...eventBase(state), toolName: name, toolCallId: call.id, error: { code: failure.code, message: failure.message } });
      outcomes.push({ toolCallId: call.id, toolName: name, ok: false, errorCode: failure.code });
    } else {
      outcomes.push({ toolCallId: call.id, toolName: name, ok: true });
    }
  }
  return outcomes;
}
