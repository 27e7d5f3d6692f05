import { type LLMPayload, safeEmit } from '@ctxkit/core';

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

/**
 * True when the payload sent at least one older tool result as mode A's one-line summary: its stats
 * report a reduction whose cause is `collapsed`, as every strategy reports what it collapsed (core's
 * composer does for those of its window). A strategy that ignores the compose option reports none.
 * Read from the records, never from the messages: tool call ids may repeat across a long history.
 */
export function collapsedResults(payload: LLMPayload): boolean {
  return payload.stats.reductions.some((record) => record.cause === 'collapsed');
}
