import { type ChatMessage, type LLMPayload, safeEmit, type ToolCall, type ToolMessage } from '@ctxkit/core';
import { collapsedToolResult, toolContentText } from '@ctxkit/core/strategy-kit';

import { selectPromptAndTools } from '../small-context/select-prompt-and-tools';
import type { SmallContextMode, SmallContextOptions } from '../small-context/small-context-plan';
import type { ComposeInput } from './compose-step';
import type { RunContext } from './run-context';
import { eventBase, type RunRecord } from './run-record';

/** What the small-context step prepared for one call. */
export interface SmallContextCall {
  /**
   * The strategy's arguments: the run's own history (never rewritten), mode C's prompt and tools, mode A's compose
   * option.
   */
  input: ComposeInput;
  /**
   * Which modes changed this call before composing (mode A is known only from the payload: see {@link
   * collapsedResults}).
   */
  fired: { C: boolean };
}

/** Emits `small-context-mode` when a mode's engaged state changes for the session. */
export function setEngaged(
  context: RunContext,
  record: Readonly<RunRecord>,
  mode: SmallContextMode,
  active: boolean,
  reason: string,
): void {
  const { session } = context;
  if (session.engaged.has(mode) === active) return;
  if (active) session.engaged.add(mode);
  else session.engaged.delete(mode);
  safeEmit(context.events, 'small-context-mode', { ...eventBase(context, record), mode, active, reason });
}

/**
 * Before each `composePayload`: applies the small-context modes of the session's plan.
 * Mode C picks the compact system prompt and the essential tools. Mode A asks the strategy, through
 * the compose option `collapseOlderToolResults`, to send tool results older than the newest step as
 * one-line summaries (`full`/`on` always; `when-needed` from the first call where the cheap check
 * flagged the budget or the last payload reached 80% of the window, then for the rest of the
 * session). The history is never rewritten: the strategy is given the run's own history here and in
 * `onTurnComplete`, and the strategy's composer applies mode A to the payload only. Without a plan
 * (window not known yet) the call is unchanged.
 */
export function smallContextStep(
  context: RunContext,
  record: Readonly<RunRecord>,
  systemPrompt: string,
  options: SmallContextOptions,
): SmallContextCall {
  const { session } = context;
  const plan = record.plan;
  const fired = { C: false };
  if (!plan)
    return {
      input: { systemPrompt, history: record.history.slice(), toolDefinitions: context.toolDefinitions.slice() },
      fired,
    };

  const chosen = selectPromptAndTools({
    intensity: plan.modes.C,
    systemPrompt,
    toolDefinitions: context.toolDefinitions,
    userToolNames: context.userToolNames,
    options,
    contextWindow: plan.contextWindow,
    counter: context.counter,
  });
  fired.C = chosen.applied;
  setEngaged(context, record, 'C', chosen.applied, chosen.reason);

  const level = session.usage.level;
  const needed = record.flagged || level === 'compact' || level === 'critical';
  const applyA =
    plan.modes.A === 'full' || plan.modes.A === 'on' || (plan.modes.A === 'when-needed' && (needed || session.stickyA));
  if (applyA && plan.modes.A === 'when-needed') session.stickyA = true;
  const reasonA =
    plan.modes.A === 'when-needed'
      ? 'the budget is tight: older tool results collapse to one-line summaries'
      : `window ${plan.contextWindow} tokens: only the newest step's tool results stay in full`;
  setEngaged(context, record, 'A', applyA, applyA ? reasonA : 'older tool results are sent in full');
  const splitReading = plan.modes.B === 'full' || plan.modes.B === 'on';
  setEngaged(
    context,
    record,
    'B',
    splitReading,
    splitReading
      ? `window ${plan.contextWindow} tokens: large file reads come back as outline + part`
      : 'file reads are cut from the top',
  );
  return {
    input: {
      systemPrompt: chosen.systemPrompt,
      history: record.history.slice(),
      toolDefinitions: chosen.toolDefinitions,
      ...(applyA ? { options: { collapseOlderToolResults: true } } : {}),
    },
    fired,
  };
}

/** What was found about a sent tool result: whether it is the collapsed form of that history result under that call. */
interface CollapsedVerdict {
  original: ChatMessage;
  call: ToolCall | undefined;
  collapsed: boolean;
}

/**
 * Verdicts by sent message: mode A's copies are the same objects from one call to the next (the
 * composer keeps one per original), so a result already recognised is not summarised again.
 */
const collapsedVerdicts = new WeakMap<object, CollapsedVerdict>();

/**
 * True when the payload sends at least one tool result as mode A's one-line summary (`[Read:
 * main.go (500 lines, Go) — collapsed; …]`) while the history holds it in full: mode A acted on
 * this call. A strategy that ignores the compose option sends none. The payload's results are
 * checked newest first and looked up in the history newest first, stopping at the first collapsed
 * one: the cost is that of the newest steps, not of the history. A sent result already compared with
 * the same history result and call is not summarised again.
 */
export function sendsCollapsedResults(history: readonly ChatMessage[], payload: LLMPayload): boolean {
  const results = new Map<string, ToolMessage>();
  const calls = new Map<string, ToolCall>();
  let scanned = history.length;
  /** Reads one more message of the history, newest first; false once it is all read. */
  const readOne = (): boolean => {
    if (scanned === 0) return false;
    const message = history[--scanned]!;
    if (message.role === 'tool') {
      if (!results.has(message.tool_call_id)) results.set(message.tool_call_id, message);
    } else if (message.role === 'assistant') {
      for (const call of message.tool_calls ?? []) if (!calls.has(call.id)) calls.set(call.id, call);
    }
    return true;
  };
  // Newest first: the newest step's results are sent in full, the ones before it collapsed, and
  // their history entries are the last ones read.
  for (let index = payload.messages.length - 1; index >= 0; index--) {
    const message = payload.messages[index]!;
    if (message.role !== 'tool') continue;
    const id = message.tool_call_id;
    while (!results.has(id) && readOne());
    const original = results.get(id);
    if (original === undefined || original === message) continue;
    // The call sits before its result.
    while (!calls.has(id) && readOne());
    const call = calls.get(id);
    let verdict = collapsedVerdicts.get(message);
    if (verdict === undefined || verdict.original !== original || verdict.call !== call) {
      const sent = toolContentText(message);
      const full = toolContentText(original);
      verdict = { original, call, collapsed: sent.length < full.length && sent === collapsedToolResult(call, full) };
      collapsedVerdicts.set(message, verdict);
    }
    if (verdict.collapsed) return true;
  }
  return false;
}
