import { randomUUID } from 'node:crypto';

import {
  type AgentHandle,
  type AgentSource,
  AgentSourceError,
  hasContributedTools,
  hasWhenIdle,
  type IContextManager,
  IContextStore,
  type LazyAgent,
  lazyAgent,
  type LLMPayload,
  PIN_CONTEXT_TOOL,
  safeEmit,
  type TokenUsage,
  UNPIN_CONTEXT_TOOL,
} from '@ctxkit/core';
import { contentText } from '@ctxkit/core/strategy-kit';
import type { AgentInputItem, FunctionTool, Model, ModelRequest, Session, Usage } from '@openai/agents';

import { OPENAI_AGENTS_AGENT_SOURCE } from './agent-source';
import { AgentStoreSession } from './agent-store-session';
import { ComposingModel } from './composing-model';
import { contributedAgentsTools } from './contributed-agents-tools';
import { tokenUsagesOfRun } from './run-usage';
import { toAgentInputItems } from './to-agent-input-items';
import { convertItems, toChatMessages } from './to-chat-messages';
import { type SessionTool, toToolDefinitions } from './tool-definitions';

/**
 * Options of a {@link CtxkitSession}: the strategy (an agent, a manifest or a plugin id) and the session's settings.
 */
export interface CtxkitSessionOptions extends AgentSource {
  /**
   * The Session that stores the conversation's items (the Agents SDK's `MemorySession`, a
   * database session of yours ...). @default the agent's ctxkit store (memory, file or Redis,
   * whichever the runtime has), under the session id
   */
  session?: Session;
  /**
   * The conversation: one strategy instance and its state. @default the given `session`'s own id,
   * else a random UUID
   */
  sessionId?: string;
  /**
   * After reporting a finished turn, wait until the strategy's background work (a summary fold) is done. @default false
   */
  waitForIdle?: boolean;
  /** Called with every payload the strategy composed (stats: tokens, reductions). */
  onPayload?: (payload: LLMPayload) => void;
}

/**
 * The session's options without the agent source, as the earlier constructor took them beside it.
 * @deprecated Use {@link CtxkitSessionOptions}, which holds both.
 */
export type CtxkitSessionSettings = Omit<CtxkitSessionOptions, keyof AgentSource>;

/** What the session has once its agent is open. */
interface OpenSession {
  agent: AgentHandle;
  sessionId: string;
  manager: IContextManager;
  items: Session;
}

/**
 * The tools a session contributes beside the strategy: the caller's to count, sent on every call (no strategy adds
 * them).
 */
const SESSION_TOOLS: ReadonlySet<string> = new Set([PIN_CONTEXT_TOOL, UNPIN_CONTEXT_TOOL]);

/** True for an item that closes a turn: an assistant message (a function call would still wait for its result). */
function endsTurn(item: AgentInputItem | undefined): boolean {
  const record = item as { type?: string; role?: string } | undefined;
  return (
    record !== undefined && (record.type === undefined || record.type === 'message') && record.role === 'assistant'
  );
}

/**
 * An Agents SDK `Session` that decorates another (a `MemorySession`, a database session of yours,
 * by default the agent's ctxkit store) with a ctxkit context strategy:
 * - `getItems`, `popItem`, `clearSession` and `getSessionId` are the stored session's own:
 *   `getItems` returns exactly the stored items;
 * - `addItems` stores the items as given, then reports the history to the strategy's
 *   `onTurnComplete` when they end a turn (an assistant answer);
 * - the model given to {@link wrapModel} composes every request of a run (tool loops included,
 *   the first call as every other) from the whole conversation the runner sends, with the call's
 *   own instructions and function tools, and sends the strategy's tools exactly when its payload
 *   offers them. The runner's items are never changed, so the stored history is the runs' items.
 *
 * Constructed synchronously; the strategy's agent is opened on first use (a run, `tools()`,
 * `getAgent()`). One run at a time per session.
 *
 * ```ts
 * const session = new CtxkitSession({
 *   pluginId: 'std-summarization-strategy',
 *   config: { maxContextTokens: 16000 },
 *   session: new MemorySession(),
 * });
 * const tools = [...myTools, ...(await session.tools())];
 * const agent = new Agent({ name: 'travel', instructions, model: session.wrapModel(model), tools });
 * await run(agent, 'Hello', { session });
 * ```
 */
export class CtxkitSession implements Session {
  private readonly source: LazyAgent;
  private opening: Promise<OpenSession> | undefined;
  private opened: OpenSession | undefined;
  private payload: LLMPayload | undefined;
  private strategyTools: FunctionTool[] | undefined;
  /** User turns of the history last reported, for the `llm-usage` events. */
  private userTurns = 0;

  /** @throws AgentSourceError (`CTXKIT_CONFIG_INVALID`) for options that do not name exactly one strategy source */
  constructor(private readonly options: CtxkitSessionOptions) {
    this.source = lazyAgent(options, OPENAI_AGENTS_AGENT_SOURCE);
  }

  /**
   * The strategy's agent, opened now if it was not (loading its plugin, creating the runtime).
   * @throws the runtime's typed errors (`CTXKIT_PLUGIN_NOT_FOUND`, `CTXKIT_CONFIG_INVALID`, `CTXKIT_STORE_KEY_INVALID`
   *   ...)
   */
  async getAgent(): Promise<AgentHandle> {
    return (await this.open()).agent;
  }

  /**
   * The strategy's agent (its `events`, `config`, sessions) once the session is open.
   * @throws AgentSourceError before the first run, `tools()` or `getAgent()`
   */
  get agent(): AgentHandle {
    return this.requireOpen().agent;
  }

  /**
   * The strategy of this conversation once the session is open.
   * @throws AgentSourceError before the first run, `tools()` or `getAgent()`
   */
  get manager(): IContextManager {
    return this.requireOpen().manager;
  }

  /** The last payload the strategy composed for this session, with its stats. */
  get lastPayload(): LLMPayload | undefined {
    return this.payload;
  }

  /**
   * `model` composing each request with the strategy: give it to the agent run with this session,
   * `new Agent({ model: session.wrapModel(model), ... })`. Without it nothing is composed.
   */
  wrapModel(model: Model): Model {
    return new ComposingModel(model, (request) => this.composeRequest(request));
  }

  /**
   * The tools the strategy contributes (`tool_output_cache`, `tool_output_cache_grep`, `compact` of
   * the tool output cache, the pin tools of a manifest with `pinTool`) as Agents SDK function tools
   * run by this session's strategy: `new Agent({ tools: [...yourTools, ...(await session.tools())] })`.
   * The wrapped model sends each one exactly when the strategy's payload for that call offers it.
   * The same array on every call; empty for a strategy that contributes none.
   */
  async tools(): Promise<FunctionTool[]> {
    await this.open();
    return this.contributedTools();
  }

  /**
   * {@link tools} once the session is open.
   * @deprecated Use `await session.tools()`, which opens the session.
   * @throws AgentSourceError before the session is open
   */
  contributedTools(): FunctionTool[] {
    const { agent, manager, sessionId } = this.requireOpen();
    this.strategyTools ??= contributedAgentsTools(manager, { agentId: agent.id, sessionId, offers: () => true });
    return this.strategyTools;
  }

  /**
   * Records what each model call of a finished run used: pass the run's usage
   * (`result.runContext.usage`) once the run is over. Emits `llm-usage` on the agent's events per
   * call (cache reads and writes apart from the rest of the input; the Agents SDK reports no model
   * per call, so `model` is the agent's) and returns the calls' usage.
   * @throws AgentSourceError before the session is open
   */
  recordUsage(usage: Usage): TokenUsage[] {
    const { agent, sessionId } = this.requireOpen();
    const calls = tokenUsagesOfRun(usage);
    for (const call of calls) {
      safeEmit(agent.events, 'llm-usage', {
        agentId: agent.id,
        sessionId,
        strategyId: agent.strategyId,
        turn: this.userTurns,
        usage: call,
        model: agent.model,
      });
    }
    return calls;
  }

  async getSessionId(): Promise<string> {
    return (await this.open()).sessionId;
  }

  /** The stored items, most recent `limit` when given: exactly what the stored session holds. */
  async getItems(limit?: number): Promise<AgentInputItem[]> {
    return (await this.open()).items.getItems(limit);
  }

  /**
   * Every stored item.
   * @deprecated Use `getItems()`, which returns the stored items.
   */
  async getStoredItems(): Promise<AgentInputItem[]> {
    return this.getItems();
  }

  /**
   * Appends items to the stored session; when they end a turn (an assistant answer), reports the
   * whole stored history to the strategy's `onTurnComplete`.
   * @throws AgentInputItemError (`CTXKIT_HISTORY_INVALID`) for an item that is not a valid input item (nothing is
   *   stored)
   */
  async addItems(items: AgentInputItem[]): Promise<void> {
    const { items: stored, manager } = await this.open();
    convertItems(items);
    await stored.addItems(items);
    if (!endsTurn(items.at(-1))) return;
    const history = toChatMessages(await stored.getItems());
    this.userTurns = history.filter((message) => message.role === 'user').length;
    await manager.onTurnComplete(history);
    if (this.options.waitForIdle && hasWhenIdle(manager)) await manager.whenIdle();
  }

  async popItem(): Promise<AgentInputItem | undefined> {
    return (await this.open()).items.popItem();
  }

  async clearSession(): Promise<void> {
    await (await this.open()).items.clearSession();
  }

  /** Releases the agent and runtime the session opened (nothing for an agent you passed). Safe twice. */
  async dispose(): Promise<void> {
    await this.source.dispose();
  }

  private open(): Promise<OpenSession> {
    if (this.opening === undefined) {
      this.opening = this.openNow().then(
        (opened) => (this.opened = opened),
        (error: unknown) => {
          this.opening = undefined;
          throw error;
        },
      );
    }
    return this.opening;
  }

  private async openNow(): Promise<OpenSession> {
    const agent = await this.source.get();
    const sessionId =
      this.options.sessionId ?? (this.options.session ? await this.options.session.getSessionId() : randomUUID());
    const manager = agent.forSession(sessionId);
    const items =
      this.options.session ?? new AgentStoreSession(agent.container.resolve(IContextStore), agent.id, sessionId);
    return { agent, sessionId, manager, items };
  }

  private requireOpen(): OpenSession {
    if (this.opened === undefined) {
      throw new AgentSourceError(
        'CtxkitSession',
        'the session is not open yet',
        'Await session.getAgent() or session.tools() (a run opens it too) before reading session.agent, ' +
          'session.manager or session.contributedTools().',
      );
    }
    return this.opened;
  }

  /** The names of the strategy's own tools, which go out only when a payload offers them. */
  private ownToolNames(manager: IContextManager): Set<string> {
    if (!hasContributedTools(manager)) return new Set();
    return new Set(
      manager
        .contributedTools()
        .map((contributed) => contributed.definition.function.name)
        .filter((name) => !SESSION_TOOLS.has(name)),
    );
  }

  /**
   * One request as the strategy composes it: its input within the budget, the strategy's tools as the payload offers
   * them.
   */
  private async composeRequest(request: ModelRequest): Promise<ModelRequest> {
    const { manager } = await this.open();
    const own = this.ownToolNames(manager);
    const items: AgentInputItem[] =
      typeof request.input === 'string' ? [{ role: 'user', content: request.input }] : request.input;
    const instructions = request.systemInstructions ?? '';
    const callerTools = request.tools.filter((tool) => !('name' in tool) || !own.has(tool.name));
    const payload = await manager.composePayload(
      instructions,
      toChatMessages(items),
      toToolDefinitions(callerTools as SessionTool[]),
    );
    this.payload = payload;
    this.options.onPayload?.(payload);
    const [first, ...rest] = payload.messages;
    const messages = first?.role === 'system' && contentText(first.content) === instructions ? rest : payload.messages;
    const offered = new Set(payload.tools.map((definition) => definition.function.name));
    const tools = request.tools.filter((tool) => !('name' in tool) || !own.has(tool.name) || offered.has(tool.name));
    return { ...request, input: toAgentInputItems(messages), tools };
  }
}

/**
 * A {@link CtxkitSession}, opened before it is returned.
 * @deprecated Use `new CtxkitSession(options)`: constructed synchronously, it opens its agent on first use.
 * @throws AgentSourceError (`CTXKIT_CONFIG_INVALID`) for options that do not name exactly one strategy source
 * @throws the runtime's typed errors (`CTXKIT_PLUGIN_NOT_FOUND`, `CTXKIT_CONFIG_INVALID`, `CTXKIT_STORE_KEY_INVALID`
 *   ...)
 */
export async function createCtxkitSession(options: CtxkitSessionOptions): Promise<CtxkitSession> {
  const session = new CtxkitSession(options);
  try {
    await session.getAgent();
  } catch (error) {
    await session.dispose();
    throw error;
  }
  return session;
}
