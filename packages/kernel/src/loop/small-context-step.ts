import { safeEmit, type CtxkitEventBus, type ReductionRecord, type ToolDefinition } from '@ctxkit/core';
import { selectPromptAndTools } from '../small-context/select-prompt-and-tools';
import type { SmallContextMode, SmallContextOptions } from '../small-context/small-context-plan';
import type { ComposeInput } from './compose-step';
import { eventBase, type RunState } from './run-state';
import type { SessionBudgetState } from './session-budget-state';

/** What the small-context step prepared for one call. */
export interface SmallContextCall {
  input: ComposeInput;
  /** Mode A's collapsed results (history indexes), added to the payload's stats. */
  reductions: ReductionRecord[];
  /** Which modes changed this call. */
  fired: { A: boolean; C: boolean };
}

/** Emits `small-context-mode` when a mode's engaged state changes for the session. */
export function setEngaged(state: RunState, session: SessionBudgetState, events: CtxkitEventBus, mode: SmallContextMode, active: boolean, reason: string): void {
  if (session.engaged.has(mode) === active) return;
  if (active) session.engaged.add(mode);
  else session.engaged.delete(mode);
  safeEmit(events, 'small-context-mode', { ...eventBase(state), mode, active, reason });
}

/**
 * Before each `composePayload`: applies the small-context modes of the session's plan (seed 004).
 * Mode C picks the compact system prompt and the essential tools; mode A gives the strategy a view of
 * the history where tool results older than the newest step are one-line summaries (`full`/`on`
 * always; `when-needed` from the first call where the cheap check flagged the budget or the last
 * payload reached 80% of the window, then for the rest of the session). Without a plan (window not
 * known yet) the call is unchanged.
 */
export function smallContextStep(
  state: RunState,
  session: SessionBudgetState,
  events: CtxkitEventBus,
  systemPrompt: string,
  options: SmallContextOptions,
): SmallContextCall {
  const plan = state.plan;
  const fired = { A: false, C: false };
  if (!plan) return { input: { systemPrompt, history: state.history.slice(), toolDefinitions: state.toolDefinitions.slice() }, reductions: [], fired };

  const chosen = selectPromptAndTools({
    intensity: plan.modes.C,
    systemPrompt,
    toolDefinitions: state.toolDefinitions as readonly ToolDefinition[],
    userToolNames: state.userToolNames,
    options,
    contextWindow: plan.contextWindow,
    counter: state.counter,
  });
  fired.C = chosen.applied;
  setEngaged(state, session, events, 'C', chosen.applied, chosen.reason);

  const level = session.usage.level(state.sessionId);
  const needed = state.budgetFlag || level === 'compact' || level === 'critical';
  const applyA = plan.modes.A === 'full' || plan.modes.A === 'on' || (plan.modes.A === 'when-needed' && (needed || session.stickyA));
  if (applyA && plan.modes.A === 'when-needed') session.stickyA = true;
  let history = state.history.slice();
  let reductions: ReductionRecord[] = [];
  if (applyA) {
    const collapsed = session.collapser.collapse(state.history);
    history = collapsed.history;
    reductions = collapsed.reductions;
    fired.A = collapsed.collapsed > 0;
  }
  const reasonA =
    plan.modes.A === 'when-needed'
      ? 'the budget is tight: older tool results collapse to one-line summaries'
      : `window ${plan.contextWindow} tokens: only the newest step's tool results stay in full`;
  setEngaged(state, session, events, 'A', applyA, applyA ? reasonA : 'older tool results are sent in full');
  const splitReading = plan.modes.B === 'full' || plan.modes.B === 'on';
  setEngaged(state, session, events, 'B', splitReading, splitReading ? `window ${plan.contextWindow} tokens: large file reads come back as outline + part` : 'file reads are cut from the top');
  return { input: { systemPrompt: chosen.systemPrompt, history, toolDefinitions: chosen.toolDefinitions }, reductions, fired };
}
