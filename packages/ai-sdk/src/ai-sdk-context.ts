import {
  createContextRuntime,
  DEFAULT_SESSION_ID,
  hasWhenIdle,
  safeEmit,
  type AgentHandle,
  type AgentManifest,
  type ChatMessage,
  type ComposeOptions,
  type IContextManager,
  type ContextRuntime,
  type ContextRuntimeOptions,
  type LoadAgentOptions,
  type ToolDefinition,
} from '@ctxkit/core';
import type { LanguageModelMiddleware, ModelMessage, PrepareStepFunction, PrepareStepResult, ToolSet } from 'ai';
import type { LanguageModelCallOptions } from './ai-sdk-types';
import { composeCall, type ComposedCall } from './compose-prompt';
import { composeMessages, type ComposedMessages, type ComposeMessagesInput, type MessageComposer } from './compose-messages';
import type { ComposeSettings, RagContextSource } from './compose-settings';
import { createContextMiddleware, type CallUsage } from './context-middleware';
import { contributedAiTools } from './contributed-ai-tools';
import { AiSdkOptionsError } from './errors/ai-sdk-options-error';
import { stepHistory, type PrepareStepOptions } from './step-history';
import { modelMessageToChat } from './to-chat-messages';
import { toolSetDefinitions } from './tool-definitions';

/** The agent id given to an agent described by `pluginId` + `config`. */
export const DEFAULT_AI_SDK_AGENT_ID = 'ai-sdk-agent';

/** Options of {@link createAiSdkContext}: the agent (one of `agent` or `pluginId`), the session, and how to compose. */
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
  /** Options of the runtime created when no `runtime` is given (plugin directories, store, LLM client for summaries). */
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
  return typeof value === 'object' && value !== null && typeof (value as AgentHandle).forSession === 'function' && typeof (value as AgentHandle).strategyId === 'string';
}

function checkOptions(options: AiSdkContextOptions): void {
  const named = (options.agent !== undefined ? 1 : 0) + (options.pluginId !== undefined ? 1 : 0);
  if (named === 0) {
    throw new AiSdkOptionsError('no agent named', "Give agent (a plugin.json path, a manifest or a loaded agent) or pluginId (with config), e.g. { pluginId: 'std-summarization-strategy', config: { maxContextTokens: 8000 } }.");
  }
  if (named === 2) throw new AiSdkOptionsError('both agent and pluginId given', 'Give one: the strategy of a manifest agent is its contextStrategy.');
  if (options.agent !== undefined) {
    const shorthand = (['config', 'agentId', 'model'] as const).filter((key) => options[key] !== undefined);
    if (shorthand.length > 0) throw new AiSdkOptionsError(`${shorthand.join(', ')} given with agent`, "Put them in the agent's manifest (contextStrategy.config, id, model), or use pluginId instead of agent.");
  }
  if (options.runtime !== undefined && options.runtimeOptions !== undefined) {
    throw new AiSdkOptionsError('both runtime and runtimeOptions given', 'Give runtimeOptions to createContextRuntime() yourself, or let the context create the runtime.');
  }
  if (isAgentHandle(options.agent) && (options.runtime !== undefined || options.runtimeOptions !== undefined || options.loadOptions !== undefined)) {
    throw new AiSdkOptionsError('runtime options given with an agent already loaded', 'Leave runtime, runtimeOptions and loadOptions out: the agent is loaded.');
  }
}

/**
 * One conversation of an agent, for the Vercel AI SDK: the strategy runs on every step of
 * `generateText` / `streamText` through {@link middleware} (for `wrapLanguageModel`) or
 * {@link prepareStep} (with {@link onEnd}), and the strategy's tools join yours through
 * {@link tools}. Created by {@link createAiSdkContext}; {@link forSession} gives the same agent's
 * other conversations.
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
      if (Object.hasOwn(this.strategyTools, name)) this.warn(`The strategy's tool "${name}" is hidden by a tool of the same name.`);
      merged[name] = tool;
    }
    this.registeredTools = merged;
    return merged as TOOLS & ToolSet;
  }

  /**
   * A `prepareStep` for `generateText` / `streamText` (use it with {@link onEnd}, instead of the
   * middleware): each step's conversation (rebuilt from the initial and response messages) is
   * composed by the strategy and sent as that step's `instructions`, `messages` and `activeTools`.
   * It counts the tools last given to {@link tools}.
   */
  readonly prepareStep = async <TOOLS extends ToolSet = ToolSet>(options: Parameters<PrepareStepFunction<TOOLS>>[0]): Promise<PrepareStepResult<TOOLS>> => {
    const history = stepHistory(options as unknown as PrepareStepOptions);
    this.stepCalls.set(options.steps, history);
    this.lastStepCall = history;
    if (!this.registeredTools && !this.warnedUnregistered) {
      this.warnedUnregistered = true;
      this.warn('prepareStep counts no tools: pass tools: context.tools(yourTools) to generateText / streamText so that their definitions are counted.');
    }
    const composed = await this.compose({ instructions: options.initialInstructions, messages: history, tools: this.registeredTools ?? {} });
    const result: NonNullable<PrepareStepResult<ToolSet>> = { instructions: composed.instructions, messages: composed.messages };
    if (composed.activeTools) result.activeTools = composed.activeTools;
    return result as PrepareStepResult<TOOLS>;
  };

  /**
   * The `onEnd` of a `generateText` / `streamText` run that uses {@link prepareStep}: reports the
   * finished turn (the whole conversation with the run's answer) to the strategy.
   */
  readonly onEnd = async (event: RunEndEvent): Promise<void> => {
    const history = this.stepCalls.get(event.steps) ?? this.lastStepCall;
    if (!history) {
      this.warn('onEnd was called for a run that did not use prepareStep; the turn was not reported (the middleware reports turns itself).');
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

  /** The ctxkit messages of a conversation; each AI SDK message is converted once (its messages stay the same objects). */
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
    safeEmit(this.agent.events, 'strategy-warning', { agentId: this.agent.id, sessionId: this.sessionId, strategyId: this.agent.strategyId, turn: 0, message });
  }
}

/**
 * Loads an agent's strategy for the Vercel AI SDK, by plugin id and config or from a
 * `plugin.json`-declared agent, through `createContextRuntime()` and `runtime.loadAgent()`.
 *
 * ```ts
 * const context = await createAiSdkContext({ pluginId: 'std-summarization-strategy', config: { maxContextTokens: 8000 } });
 * const result = await generateText({
 *   model: wrapLanguageModel({ model, middleware: context.middleware }),
 *   system, messages, tools: context.tools(myTools), stopWhen: stepCountIs(10),
 * });
 * ```
 * @throws AiSdkOptionsError (`CTXKIT_MANIFEST_INVALID`) when the options name no agent or two
 * @throws what `runtime.loadAgent` throws (`PluginNotFoundError`, `ConfigValidationError`, `ManifestValidationError` ...)
 * @throws StoreKeyError (`CTXKIT_STORE_KEY_INVALID`) for a session id that cannot be a store key part
 */
export async function createAiSdkContext(options: AiSdkContextOptions): Promise<AiSdkContext> {
  checkOptions(options);
  const shared: SharedSettings = { waitForIdle: options.waitForIdle ?? false };
  if (options.ragContext !== undefined) shared.ragContext = options.ragContext;
  if (options.composeOptions !== undefined) shared.composeOptions = options.composeOptions;
  const sessionId = options.sessionId ?? DEFAULT_SESSION_ID;
  if (isAgentHandle(options.agent)) {
    return new AiSdkContext(options.agent, sessionId, shared, { disposed: false, release: async () => undefined });
  }
  const runtime = options.runtime ?? (await createContextRuntime(options.runtimeOptions));
  const ownsRuntime = options.runtime === undefined;
  const manifest: string | AgentManifest =
    options.agent ??
    ({
      id: options.agentId ?? DEFAULT_AI_SDK_AGENT_ID,
      ...(options.model !== undefined ? { model: options.model } : {}),
      contextStrategy: { type: 'plugin', pluginId: options.pluginId!, config: options.config ?? {} },
    } satisfies AgentManifest);
  let agent: AgentHandle;
  try {
    agent = await runtime.loadAgent(manifest, options.loadOptions);
  } catch (error) {
    if (ownsRuntime) await runtime.dispose().catch(() => undefined);
    throw error;
  }
  const owner: ContextOwner = { disposed: false, release: () => (ownsRuntime ? runtime.dispose() : agent.dispose()) };
  try {
    return new AiSdkContext(agent, sessionId, shared, owner);
  } catch (error) {
    await owner.release().catch(() => undefined);
    throw error;
  }
}
