import {
  CapabilityUnsupportedError,
  type ChatMessage,
  createTokenCounter,
  createTokenUsage,
  CtxkitError,
  type CtxkitEventBus,
  DEFAULT_SESSION_ID,
  ErrorCodes,
  hasContributedTools,
  IContextManager,
  IEventBus,
  ILLMClient,
  type ITokenCounter,
  type LLMPayload,
  type ReductionEpoch,
  safeEmit,
  type TokenUsage,
  truncatesToolOutputs,
  type UndoResult,
} from '@ctxkit/core';
import { HeuristicTokenCounter } from '@ctxkit/core/strategy-kit';
import { inject, injectable } from 'tsyringe';

import { type AgentOptions, DEFAULT_MAX_STEPS } from './agent-options';
import type { AgentRunOptions, AgentRunResult } from './agent-run';
import { AgentCountCalibration } from './budget/agent-count-calibration';
import { emptyRunBudgetReport } from './budget/run-budget-report';
import { IAgentOptions, IToolRegistry } from './injection-tokens';
import { budgetStep, recordSent } from './loop/budget-step';
import { type CallSettings, recordAnswer } from './loop/call-llm-step';
import { compactionStep } from './loop/compaction-step';
import { completeTurnStep } from './loop/complete-turn-step';
import { composeStep } from './loop/compose-step';
import { adoptedMessage, freezeNewMessage, frozenMessage } from './loop/frozen-message';
import { callModelStep } from './loop/overflow-retry-step';
import type { RunContext } from './loop/run-context';
import { currentTurn, eventBase, NOTHING_SENT, type RunRecord, type TurnCount } from './loop/run-record';
import { runToolsStep, type ToolCallOutcome } from './loop/run-tools-step';
import { newSessionRecord, NO_HISTORY, type SessionRecord } from './loop/session-record';
import { collapsedResults, smallContextStep } from './loop/small-context-step';
import type { ProviderName } from './providers/provider-name';
import { planSmallContext, type SmallContextPlan } from './small-context/small-context-plan';
import type { AgentTool } from './tools/agent-tool';
import type { IToolRegistry as ToolRegistryContract } from './tools/tool-registry';

function sumUsage(usages: readonly TokenUsage[]): TokenUsage {
  return createTokenUsage({
    input_tokens: usages.reduce((sum, u) => sum + u.input_tokens, 0),
    output_tokens: usages.reduce((sum, u) => sum + u.output_tokens, 0),
    cache_creation_tokens: usages.reduce((sum, u) => sum + u.cache_creation_tokens, 0),
    cache_read_tokens: usages.reduce((sum, u) => sum + u.cache_read_tokens, 0),
    ...(usages.some((u) => u.cache_creation_1h_tokens !== undefined)
      ? { cache_creation_1h_tokens: usages.reduce((sum, u) => sum + (u.cache_creation_1h_tokens ?? 0), 0) }
      : {}),
  });
}

/**
 * The agent loop: compose → provider check → call the model → run tools → repeat until
 * the model answers without tool calls or `maxSteps` is reached → compaction before return →
 * `onTurnComplete`. Everything it uses comes from the agent's container by injection: the model
 * (`ILLMClient`), the tools (`IToolRegistry`), the event bus (`IEventBus`), its settings
 * (`IAgentOptions`) and, for an agent whose settings have no `contextManagerFor`, the default
 * session's context manager (`IContextManager`). The steps live in `loop/`: each is a function of the
 * run's context (fixed for the run) and its record (what the run has done), and returns what it
 * produced; the loop below records it. What the agent keeps of a session between runs is one
 * record per session (`SessionRecord`).
 *
 * It keeps each session's history between runs; `run(messages)` replaces it. Messages are never
 * copied from one run to the next: each is frozen once, as it enters the history, and the same
 * objects are handed to the strategy on every call (a strategy's identity-based fast paths hold), to
 * `onTurnComplete`, and back in `result.messages` and `history()`.
 * @see docs/08-kernel.md
 */
@injectable()
export class Agent {
  private readonly sessions = new Map<string, SessionRecord>();
  /** Opens a session's context manager: `contextManagerFor`, else the injected manager for the default session only. */
  private readonly openManager: (sessionId: string, resourceId?: string) => IContextManager;
  /** The window learned from the first payload's budget when the options name none. */
  private learnedWindow: number | undefined;
  private defaultCounter: ITokenCounter | undefined;
  private countCalibration: AgentCountCalibration | undefined;

  constructor(
    @inject(IContextManager, { isOptional: true }) contextManager: IContextManager | undefined,
    @inject(ILLMClient) private readonly llm: ILLMClient,
    @inject(IToolRegistry) private readonly tools: ToolRegistryContract,
    @inject(IEventBus) private readonly events: CtxkitEventBus,
    @inject(IAgentOptions) private readonly options: AgentOptions,
  ) {
    const defaultOnly = (sessionId: string): IContextManager =>
      sessionId === DEFAULT_SESSION_ID && contextManager ? contextManager : this.unreachable(sessionId);
    this.openManager = options.contextManagerFor ?? defaultOnly;
  }

  /** The agent's id. */
  get id(): string {
    return this.options.agentId;
  }

  /**
   * A session's history as the agent keeps it ([] before its first run): a frozen array of frozen
   * messages, shared with the agent rather than copied, that nobody can change.
   */
  history(sessionId: string = DEFAULT_SESSION_ID): readonly ChatMessage[] {
    return (this.sessions.get(sessionId)?.history ?? NO_HISTORY).messages;
  }

  /**
   * A session's undoable reductions (folds, extractions, compactions, trims), oldest first: its
   * `epochs()`, or none when its strategy records none. See docs/14-controlling-what-survives.md.
   * @throws CtxkitError (`CTXKIT_STRATEGY_ERROR`) for a session the agent cannot reach
   */
  async epochs(options: { sessionId?: string } = {}): Promise<ReductionEpoch[]> {
    const manager = this.openManager(options.sessionId ?? DEFAULT_SESSION_ID);
    return typeof manager.epochs === 'function' ? manager.epochs() : [];
  }

  /**
   * Undoes a reduction of a session and every later one (the session's `undo(epochId)`). When the
   * undone epoch had replaced the history (a compaction), the session continues from the history it
   * replaced: `history()` returns it and the next `run` composes from it; the result's `history` is
   * then that same frozen array, its messages frozen in place (not copied: they were read back for
   * this undo; messages the agent froze before keep their identity). Otherwise the agent's history
   * is unchanged. See docs/14-controlling-what-survives.md.
   * @throws EpochNotFoundError (`CTXKIT_EPOCH_NOT_FOUND`) for an epoch the session does not have
   * @throws CapabilityUnsupportedError (`CTXKIT_CAPABILITY_UNSUPPORTED`) when the strategy offers no undo
   * @throws CtxkitError (`CTXKIT_STRATEGY_ERROR`) for a session the agent cannot reach
   */
  async undo(epochId: string, options: { sessionId?: string } = {}): Promise<UndoResult> {
    const sessionId = options.sessionId ?? DEFAULT_SESSION_ID;
    const manager = this.openManager(sessionId);
    if (typeof manager.undo !== 'function') throw new CapabilityUnsupportedError(this.options.strategyId, 'undo');
    const result = await manager.undo(epochId);
    if (!result.history) return result;
    const messages = Object.freeze(result.history.map(adoptedMessage)) as readonly ChatMessage[];
    const turn = messages.reduce((users, message) => (message.role === 'user' ? users + 1 : users), 0);
    this.sessionFor(sessionId).history = { messages, turn };
    return { ...result, history: messages as ChatMessage[] };
  }

  /**
   * Runs one turn: `input` as a string is a new user message appended to the session's history;
   * as messages, it is the whole history to continue from (neither the array nor its messages are
   * changed: messages from `result.messages` are kept as they are, others as frozen copies).
   * @throws ProviderPayloadError (`CTXKIT_PROVIDER_PAYLOAD_INVALID`) when a composed payload would be rejected
   * @throws CtxkitError (`CTXKIT_STRATEGY_ERROR`) for a session the agent cannot reach
   * @throws the strategy's and the client's typed errors (`BudgetExceededError`, `LLMRequestError` ...)
   */
  async run(input: string | readonly ChatMessage[], runOptions: AgentRunOptions = {}): Promise<AgentRunResult> {
    const sessionId = runOptions.sessionId ?? DEFAULT_SESSION_ID;
    const maxSteps = runOptions.maxSteps ?? this.options.maxSteps ?? DEFAULT_MAX_STEPS;
    const manager = this.openManager(sessionId, runOptions.resourceId);
    const session = this.sessionFor(sessionId);
    const kept = session.history;
    let history: ChatMessage[];
    let turns: TurnCount;
    if (typeof input === 'string') {
      history = [...kept.messages, freezeNewMessage({ role: 'user', content: input })];
      turns = { history, counted: history.length, turn: kept.turn + 1 };
    } else {
      history = input.map(frozenMessage);
      turns = { history, counted: 0, turn: 0 };
    }
    const calibration = this.calibration();
    await calibration?.ready();
    const truncatesToBudget = () => this.truncatesToBudget(manager);
    const context: RunContext = {
      agentId: this.options.agentId,
      sessionId,
      strategyId: this.options.strategyId,
      manager,
      events: this.events,
      session,
      ...this.toolsFor(manager),
      userToolNames: new Set(this.tools.names()),
      counter: calibration?.counter ?? this.counter(),
      calibration,
      toolOutputPolicies: this.options.toolOutputPolicies ?? {},
      toolOutputCaps: this.options.toolOutputCaps ?? {},
      truncatesToBudget,
    };
    const window = this.options.contextWindow ?? this.learnedWindow;
    const plan = window !== undefined ? this.planFor(window) : undefined;
    const record: RunRecord = {
      history,
      turns,
      steps: 0,
      usages: [],
      payloads: [],
      plan,
      sent: NOTHING_SENT,
      flagged: false,
      budget: emptyRunBudgetReport(window, plan),
    };
    const systemPrompt = this.options.systemPrompt ?? '';
    const smallContext = this.options.smallContext ?? {};
    // The kernel is the one emitter of usage-level-change for the sessions it runs: strategies stay silent there.
    session.usage.claim();
    /** Composes from `from` (the record's history, or the one a compaction just gave). */
    const compose = async (from: ChatMessage[] = record.history): Promise<LLMPayload> => {
      const call = smallContextStep(
        context,
        from === record.history ? record : { ...record, history: from },
        systemPrompt,
        smallContext,
      );
      const payload = await composeStep(context, call.input, runOptions.ragContext);
      // Mode A fired when the strategy honoured the request: older results went out as one-line summaries.
      if (call.input.options?.collapseOlderToolResults && collapsedResults(payload)) record.budget.modesFired.A++;
      if (call.fired.C) record.budget.modesFired.C++;
      return payload;
    };
    const toolCalls: ToolCallOutcome[] = [];
    let compactions = 0;
    let finalText = '';
    let stopReason: AgentRunResult['stopReason'] = 'max-steps';
    /** Continues from a compaction's history, when the strategy compacted. */
    const compacted = (replaced: ChatMessage[] | undefined): void => {
      if (!replaced) return;
      record.history = replaced;
      compactions++;
    };

    const settings: CallSettings = {
      ...(this.options.model !== undefined ? { model: this.options.model } : {}),
      ...(this.options.maxOutputTokens !== undefined ? { maxOutputTokens: this.options.maxOutputTokens } : {}),
      ...(this.options.llmTimeoutMs !== undefined ? { timeoutMs: this.options.llmTimeoutMs } : {}),
      ...(runOptions.signal !== undefined ? { signal: runOptions.signal } : {}),
    };

    while (record.steps < maxSteps) {
      let composed = await compose();
      const ceiling = composed.stats?.budget?.maxContextTokens;
      if (!record.plan && ceiling !== undefined && ceiling > 0) {
        // The window was not known before the first payload: learn it, and compose again if a mode applies.
        this.learnedWindow ??= ceiling;
        record.plan = this.planFor(ceiling);
        record.budget.contextWindow = ceiling;
        record.budget.plan = record.plan;
        const { A, C } = record.plan.modes;
        if (A === 'full' || A === 'on' || C === 'full' || C === 'partial') composed = await compose();
      }
      const checked = await budgetStep(context, record, composed, { recompose: compose });
      recordSent(record, checked);
      if (checked.compacted) compactions++;
      const called = await callModelStep(context, record, checked.payload, { llm: this.llm, settings, compose });
      if (called.retried) {
        recordSent(record, called.retried);
        if (called.retried.compacted) compactions++;
      }
      recordAnswer(record, called.answer);
      const completion = called.answer.completion;
      const calls = completion.message.tool_calls ?? [];
      const pending = calls.length > 0 ? record.history[record.history.length - 1] : undefined;
      compacted(
        await compactionStep(
          manager,
          record.history,
          'after-llm-call',
          completion.usage,
          pending?.role === 'assistant' ? pending : undefined,
        ),
      );
      finalText = completion.text;
      if (calls.length === 0) {
        stopReason = 'final-answer';
        break;
      }
      const ran = await runToolsStep(context, record, calls, runOptions.signal);
      record.history.push(...ran.messages);
      if (ran.flagged) record.flagged = true;
      toolCalls.push(...ran.outcomes);
      compacted(await compactionStep(manager, record.history, 'after-tools', record.usages[record.usages.length - 1]));
      finalText = '';
    }

    compacted(await compactionStep(manager, record.history, 'before-return', record.usages[record.usages.length - 1]));
    await completeTurnStep(manager, record.history, runOptions.waitForIdle ?? false);
    const messages = Object.freeze(record.history) as readonly ChatMessage[];
    session.history = { messages, turn: currentTurn(record.turns, record.history) };
    const usage = sumUsage(record.usages);
    safeEmit(this.events, 'agent-run-end', { ...eventBase(context, record), steps: record.steps, stopReason, usage });
    return {
      messages,
      finalText,
      steps: record.steps,
      stopReason,
      usage,
      usagePerStep: record.usages,
      payloads: record.payloads,
      toolCalls,
      compactions,
      budget: record.budget,
    };
  }

  /** The small-context plan (matrix row) for a window, with the agent's overrides. */
  private planFor(window: number): SmallContextPlan {
    return planSmallContext(window, this.options.smallContext ?? {});
  }

  /** The session's record, opened on first use. */
  private sessionFor(sessionId: string): SessionRecord {
    let session = this.sessions.get(sessionId);
    if (!session) {
      session = newSessionRecord(sessionId, this.provider(), this.events);
      this.sessions.set(sessionId, session);
    }
    return session;
  }

  /** The agent's count calibration (one per agent, its model's), unless `calibrateTokenCounts` is off. */
  private calibration(): AgentCountCalibration | undefined {
    if (this.options.calibrateTokenCounts === false) return undefined;
    this.countCalibration ??= new AgentCountCalibration({
      agentId: this.options.agentId,
      model: this.options.model ?? this.llm.defaultModel,
      raw: this.counter(),
      ...(this.options.store ? { store: this.options.store } : {}),
    });
    return this.countCalibration;
  }

  /** The agent's counter: the options', else an exact counter for its model, else the heuristic. */
  private counter(): ITokenCounter {
    if (this.options.counter) return this.options.counter;
    if (!this.defaultCounter) {
      const model = this.options.model ?? this.llm.defaultModel;
      try {
        this.defaultCounter = createTokenCounter({ model });
      } catch {
        this.defaultCounter = new HeuristicTokenCounter(model);
      }
    }
    return this.defaultCounter;
  }

  /** Agent-side truncation on or off (see `AgentOptions.agentSideTruncation`). */
  private truncatesToBudget(manager: IContextManager): boolean {
    const setting = this.options.agentSideTruncation ?? 'auto';
    if (setting !== 'auto') return setting === 'on';
    return !truncatesToolOutputs(manager);
  }

  /** Refuses a session the agent has no way to open. */
  private unreachable(sessionId: string): never {
    throw new CtxkitError({
      code: ErrorCodes.STRATEGY_ERROR,
      category: 'user',
      message: `Agent "${this.options.agentId}" has no way to open session "${sessionId}".`,
      fix:
        'Build the agent with createAgent(handle, …) from runtime.loadAgent(), or give IAgentOptions a ' +
        'contextManagerFor(sessionId).',
      details: { agentId: this.options.agentId, sessionId },
    });
  }

  /** The user's tools plus the strategy's (a user tool of the same name wins, with a warning). */
  private toolsFor(manager: IContextManager): Pick<RunContext, 'tools' | 'toolDefinitions'> {
    const tools = new Map<string, AgentTool>();
    const toolDefinitions = this.tools.definitions();
    for (const name of this.tools.names()) tools.set(name, this.tools.get(name)!);
    if (hasContributedTools(manager)) {
      for (const contributed of manager.contributedTools()) {
        const name = contributed.definition.function.name;
        if (tools.has(name)) {
          safeEmit(this.events, 'strategy-warning', {
            agentId: this.options.agentId,
            sessionId: DEFAULT_SESSION_ID,
            strategyId: this.options.strategyId,
            turn: 0,
            message: `The strategy's tool "${name}" is hidden by a user tool of the same name.`,
          });
          continue;
        }
        tools.set(name, contributed);
        toolDefinitions.push(structuredClone(contributed.definition));
      }
    }
    return { tools, toolDefinitions };
  }

  /**
   * The wire format payloads are checked against: the options', else the one the client declares, else `openai-chat`.
   */
  private provider(): ProviderName {
    return this.options.provider ?? this.llm.provider ?? 'openai-chat';
  }
}
