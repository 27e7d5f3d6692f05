import {
  type AgentHandle,
  type AgentManifest,
  type AgentSource,
  type ChatMessage,
  type ComposeOptions,
  type ContextRuntime,
  type ContextRuntimeOptions,
  DEFAULT_SESSION_ID,
  hasWhenIdle,
  type IContextManager,
  type LoadAgentOptions,
  openAgent,
  type OpenAgentOptions,
  safeEmit,
  type ToolDefinition,
} from '@ctxkit/core';
import type { LanguageModelMiddleware, ModelMessage, PrepareStepFunction, PrepareStepResult, ToolSet } from 'ai';

import type { LanguageModelCallOptions } from './ai-sdk-types';
import {
  type ComposedMessages,
  composeMessages,
  type ComposeMessagesInput,
  type MessageComposer,
} from './compose-messages';
import { composeCall, type ComposedCall } from './compose-prompt';
import type { ComposeSettings, RagContextSource } from './compose-settings';
import { type CallUsage, createContextMiddleware } from './context-middleware';
import { contributedAiTools } from './contributed-ai-tools';
import { type PrepareStepOptions, stepHistory } from './step-history';
import { modelMessageToChat } from './to-chat-messages';
import { toolSetDefinitions } from './tool-definitions';

/** The agent id given to an agent described by `pluginId` + `config`. */
export const DEFAULT_AI_SDK_AGENT_ID = 'ai-sdk-agent';

/** How the adapter names itself in `AgentSourceError`s, and the agent id it declares. */
export const AI_SDK_AGENT_SOURCE: OpenAgentOptions = {
  adapter: 'ctxkitMiddleware',
  defaultAgentId: DEFAULT_AI_SDK_AGENT_ID,
  example: "ctxkitMiddleware({ pluginId: 'std-summarization-strategy', config: { maxContextTokens: 8000 } })",
};

/**
 * Options of {@link createAiSdkContext}: the agent (one of `agent` or `pluginId`), the session, and how to compose.
 * @deprecated Use `ctxkitMiddleware`'s options: core's `AgentSource` (`manifest` for a path or manifest object, `agent`
 *   for a loaded agent, `config.model` for `model`).
 */
export interface AiSdkContextOptions {
  /**
   * The agent: the path of its `plugin.json` (or of the directory holding it), its manifest as an
   * object, or an agent already loaded with `runtime.loadAgent()`.
   */
  agent?: string | AgentManifest | AgentHandle;
  /** The strategy plugin id, for an agent described here instead of by a manifest (`std-summarization-strategy`). */
  pluginId?: string;
  /** The strategy's config with `pluginId` (validated against the plugin's `configSchema`). */
  config?: Record<string, unknown>;
  /** The agent id with `pluginId`. @default 'ai-sdk-agent' */
  agentId?: string;
  /** The model the strategy counts for, with `pluginId` (the config's `model` wins). @default 'gpt-4o' */
  model?: string;
  /** The conversation: one strategy instance and its state per session. @default 'default' */
  sessionId?: string;
  /** The runtime to load the agent with; one is created (and disposed with the context) otherwise. */
  runtime?: ContextRuntime;
  /**
   * Options of the runtime created when no `runtime` is given (plugin directories, store, LLM client for summaries).
   */
  runtimeOptions?: ContextRuntimeOptions;
  /** Options of `runtime.loadAgent` (this agent's LLM client or store). */
  loadOptions?: LoadAgentOptions;
  /** Retrieved knowledge sent as the dynamic context: a text, or a function of the history. */
  ragContext?: RagContextSource;
  /** How the payload is shaped (`collapseOlderToolResults` for small windows). */
  composeOptions?: ComposeOptions;
  /** Wait for the strategy's background work (summaries, extraction) after each finished turn. @default false */
  waitForIdle?: boolean;
}

/** The end-of-run event the adapter reads (`generateText` / `streamText` `onEnd`). */
export interface RunEndEvent {
  steps: ReadonlyArray<{ response: { messages: ReadonlyArray<ModelMessage> } }>;
}

/** What a context releases on `dispose()`, shared by every session of it. */
interface ContextOwner {
  disposed: boolean;
  release(): Promise<void>;
}

/** Settings every session of a context shares. */
interface SharedSettings {
  ragContext?: RagContextSource;
  composeOptions?: ComposeOptions;
  waitForIdle: boolean;
}

function isAgentHandle(value: unknown): value is AgentHandle {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as AgentHandle).forSession === 'function' &&
    typeof (value as AgentHandle).strategyId === 'string'
  );
}

/** The `AgentSource` of the deprecated options: a path or manifest object is a `manifest`, `model` joins the config. */
function agentSourceOf(options: AiSdkContextOptions): AgentSource {
  const { agent, model, config, pluginId, agentId, runtime, runtimeOptions, loadOptions } = options;
  const source: AgentSource = {};
  if (isAgentHandle(agent)) source.agent = agent;
  else if (agent !== undefined) source.manifest = agent as string | Record<string, unknown>;
  if (pluginId !== undefined) source.pluginId = pluginId;
  if (config !== undefined || model !== undefined)
    source.config = { ...(model !== undefined ? { model } : {}), ...config };
  if (agentId !== undefined) source.agentId = agentId;
  if (runtime !== undefined) source.runtime = runtime;
  if (runtimeOptions !== undefined) source.runtimeOptions = runtimeOptions;
  if (loadOptions !== undefined) source.loadOptions = loadOptions;
  return source;
}

/**
 * One conversation of an agent, for the Vercel AI SDK: the strategy runs on every step of
 * `generateText` / `streamText` through {@link middleware} (for `wrapLanguageModel`) or
 * {@link prepareStep} (with {@link onEnd}), and the strategy's tools join yours through
 * {@link tools}. Created by {@link createAiSdkContext}; {@link forSession} gives the same agent's
 * other conversations. `ctxkitMiddleware` runs on it.
 * @deprecated Use `ctxkitMiddleware(options)`: the middleware itself, synchronous, with `tools()`, `compose()` and
 *   `reportTurn()`.
 * @see docs/adapters/ai-sdk.md
 */
export class AiSdkContext {
  /**
   * A language-model middleware: `wrapLanguageModel({ model, middleware: context.middleware })`.
   * Every call of the wrapped model is composed by the strategy (within budget, tool-call groups
   * whole, the newest user message kept), and each turn that ends with an answer is reported.
   */
  readonly middleware: LanguageModelMiddleware;
  private readonly converted = new WeakMap<object, ChatMessage[]>();
  private readonly definitionsByTools = new WeakMap<ToolSet, Promise<ToolDefinition[]>>();
  private readonly stepCalls = new WeakMap<object, ModelMessage[]>();
  private lastStepCall: ModelMessage[] | undefined;
  private strategyTools: ToolSet | undefined;
  private registeredTools: ToolSet | undefined;
  private warnedUnregistered = false;

  /** @internal use {@link createAiSdkContext} */
  constructor(
    /** The loaded agent (its manifest, config, events and sessions). */
    readonly agent: AgentHandle,
    /** This conversation's id. */
    readonly sessionId: string,
    private readonly shared: SharedSettings,
    private readonly owner: ContextOwner,
  ) {
    agent.forSession(sessionId);
    this.middleware = createContextMiddleware({
      composeCall: (params: LanguageModelCallOptions): Promise<ComposedCall> => composeCall(this.settings(), params),
      completeTurn: (history: ChatMessage[]) => this.completeTurn(history),
      recordUsage: (call: CallUsage) => this.recordUsage(call),
    });
  }

  /** The conversation's context manager (the strategy instance of this session). */
  get manager(): IContextManager {
    return this.agent.forSession(this.sessionId);
  }

  /**
   * The same agent's context for another conversation (its own strategy instance and state).
   * @throws StoreKeyError (`CTXKIT_STORE_KEY_INVALID`) for a session id that cannot be a store key part
   */
  forSession(sessionId: string): AiSdkContext {
    return new AiSdkContext(this.agent, sessionId, this.shared, this.owner);
  }

  /**
   * Your tools plus the strategy's (`tool_output_cache`, `tool_output_cache_grep`, `compact` ...) as
   * AI SDK tools executed by the strategy. Pass the result as `tools` of `generateText` /
   * `streamText`; `prepareStep` counts this tool set. A tool of yours with a strategy tool's name
   * hides it (a `strategy-warning` event says so).
   */
  tools<TOOLS extends ToolSet = {}>(tools?: TOOLS): TOOLS & ToolSet {
    this.strategyTools ??= contributedAiTools(this.manager, { agentId: this.agent.id, sessionId: this.sessionId });
    const merged: ToolSet = { ...this.strategyTools };
    for (const [name, tool] of Object.entries(tools ?? {})) {
      if (Object.hasOwn(this.strategyTools, name))
        this.warn(`The strategy's tool "${name}" is hidden by a tool of the same name.`);
      merged[name] = tool;
    }
    this.registeredTools = merged;
    return merged as TOOLS & ToolSet;
  }

  /**
   * @deprecated Use the middleware (`ctxkitMiddleware`), which composes the exact request the model receives.
   * A `prepareStep` for `generateText` / `streamText` (use it with {@link onEnd}, instead of the
   * middleware): each step's conversation (rebuilt from the initial and response messages) is
   * composed by the strategy and sent as that step's `instructions`, `messages` and `activeTools`.
   * It counts the tools last given to {@link tools}.
   */
  readonly prepareStep = async <TOOLS extends ToolSet = ToolSet>(
    options: Parameters<PrepareStepFunction<TOOLS>>[0],
  ): Promise<PrepareStepResult<TOOLS>> => {
    const history = stepHistory(options as unknown as PrepareStepOptions);
    this.stepCalls.set(options.steps, history);
    this.lastStepCall = history;
    if (!this.registeredTools && !this.warnedUnregistered) {
      this.warnedUnregistered = true;
      this.warn(
        'prepareStep counts no tools: pass tools: context.tools(yourTools) to generateText / streamText so that ' +
          'their definitions are counted.',
      );
    }
    const composed = await this.compose({
      instructions: options.initialInstructions,
      messages: history,
      tools: this.registeredTools ?? {},
    });
    const result: NonNullable<PrepareStepResult<ToolSet>> = {
      instructions: composed.instructions,
      messages: composed.messages,
    };
    if (composed.activeTools) result.activeTools = composed.activeTools;
    return result as PrepareStepResult<TOOLS>;
  };

  /**
   * @deprecated With {@link prepareStep}; the middleware reports turns itself.
   * The `onEnd` of a `generateText` / `streamText` run that uses {@link prepareStep}: reports the
   * finished turn (the whole conversation with the run's answer) to the strategy.
   */
  readonly onEnd = async (event: RunEndEvent): Promise<void> => {
    const history = this.stepCalls.get(event.steps) ?? this.lastStepCall;
    if (!history) {
      this.warn(
        'onEnd was called for a run that did not use prepareStep; the turn was not reported (the middleware reports ' +
          'turns itself).',
      );
      return;
    }
    const last = event.steps[event.steps.length - 1];
    await this.reportTurn([...history, ...(last?.response.messages ?? [])]);
  };

  /**
   * Composes an AI SDK conversation with the strategy, for loops of your own: what to send as
   * `instructions`, `messages` and `activeTools`, and the payload's stats.
   * @throws ContributedToolsMissingError (`CTXKIT_TOOL_NOT_FOUND`) when `tools` lacks a tool the strategy offers
   * @throws ModelMessageError (`CTXKIT_HISTORY_INVALID`) for a message that is not an AI SDK message
   * @throws whatever the strategy's `composePayload` throws (`BudgetExceededError` ...)
   */
  async compose(input: ComposeMessagesInput): Promise<ComposedMessages> {
    const composer: MessageComposer = {
      settings: this.settings(),
      convert: (messages) => this.convert(messages),
      definitions: (tools) => this.definitionsOf(tools),
    };
    return composeMessages(composer, input);
  }

  /** Reports a finished turn (the whole conversation, oldest first) to the strategy's `onTurnComplete`. */
  async reportTurn(messages: ReadonlyArray<ModelMessage>): Promise<void> {
    await this.completeTurn(this.convert(messages));
  }

  /** Waits for the strategy's background work (summaries, extraction), when it has any. */
  async whenIdle(): Promise<void> {
    const manager = this.manager;
    if (hasWhenIdle(manager)) await manager.whenIdle();
  }

  /** Releases what {@link createAiSdkContext} created (the runtime, or the agent it loaded). Safe to call twice. */
  async dispose(): Promise<void> {
    if (this.owner.disposed) return;
    this.owner.disposed = true;
    await this.owner.release();
  }

  private settings(): ComposeSettings {
    const settings: ComposeSettings = { manager: this.manager, strategyId: this.agent.strategyId };
    if (this.shared.ragContext !== undefined) settings.ragContext = this.shared.ragContext;
    if (this.shared.composeOptions !== undefined) settings.composeOptions = this.shared.composeOptions;
    return settings;
  }

  /** Emits `llm-usage` for one model call of this conversation, as the kernel does for its own. */
  private recordUsage(call: CallUsage): void {
    const turn = call.history.filter((message) => message.role === 'user').length;
    safeEmit(this.agent.events, 'llm-usage', {
      agentId: this.agent.id,
      sessionId: this.sessionId,
      strategyId: this.agent.strategyId,
      turn,
      usage: call.usage,
      model: call.model,
      ...(call.cacheMiss ? { cacheMiss: call.cacheMiss } : {}),
    });
  }

  private async completeTurn(history: ChatMessage[]): Promise<void> {
    const manager = this.manager;
    await manager.onTurnComplete(history);
    if (this.shared.waitForIdle && hasWhenIdle(manager)) await manager.whenIdle();
  }

  /**
   * The ctxkit messages of a conversation; each AI SDK message is converted once (its messages stay the same objects).
   */
  private convert(messages: ReadonlyArray<ModelMessage>): ChatMessage[] {
    const history: ChatMessage[] = [];
    messages.forEach((message, index) => {
      let converted = typeof message === 'object' && message !== null ? this.converted.get(message) : undefined;
      if (!converted) {
        converted = modelMessageToChat(message, index);
        this.converted.set(message, converted);
      }
      history.push(...converted);
    });
    return history;
  }

  private definitionsOf(tools: ToolSet): Promise<ToolDefinition[]> {
    let definitions = this.definitionsByTools.get(tools);
    if (!definitions) {
      definitions = toolSetDefinitions(tools);
      this.definitionsByTools.set(tools, definitions);
    }
    return definitions;
  }

  private warn(message: string): void {
    safeEmit(this.agent.events, 'strategy-warning', {
      agentId: this.agent.id,
      sessionId: this.sessionId,
      strategyId: this.agent.strategyId,
      turn: 0,
      message,
    });
  }
}

/**
 * Loads an agent's strategy for the Vercel AI SDK, by plugin id and config or from a
 * `plugin.json`-declared agent, through `createContextRuntime()` and `runtime.loadAgent()`.
 * @deprecated Use `ctxkitMiddleware(options)`: synchronous, it opens the agent on the first model call.
 * @throws AgentSourceError (`CTXKIT_CONFIG_INVALID`) when the options name no agent or two
 * @throws what `runtime.loadAgent` throws (`PluginNotFoundError`, `ConfigValidationError`, `ManifestValidationError`
 *   ...)
 * @throws StoreKeyError (`CTXKIT_STORE_KEY_INVALID`) for a session id that cannot be a store key part
 */
export async function createAiSdkContext(options: AiSdkContextOptions): Promise<AiSdkContext> {
  const shared: SharedSettings = { waitForIdle: options.waitForIdle ?? false };
  if (options.ragContext !== undefined) shared.ragContext = options.ragContext;
  if (options.composeOptions !== undefined) shared.composeOptions = options.composeOptions;
  const sessionId = options.sessionId ?? DEFAULT_SESSION_ID;
  const opened = await openAgent(agentSourceOf(options), { ...AI_SDK_AGENT_SOURCE, adapter: 'createAiSdkContext' });
  const owner: ContextOwner = { disposed: false, release: () => opened.dispose() };
  try {
    return new AiSdkContext(opened.agent, sessionId, shared, owner);
  } catch (error) {
    await owner.release().catch(() => undefined);
    throw error;
  }
}
